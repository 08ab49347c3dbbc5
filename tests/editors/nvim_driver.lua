-- Drives Neovim (0.7 or 0.11+) headless through the shipped editors/nvim configuration and writes
-- what the editor saw to a JSON file. Run by test_neovim.py:
--   nvim --headless --clean -c 'luafile nvim_driver.lua'   with EVALFIX_SPEC=<spec.json>
-- The spec (written by the test) names the file to open, the edits to make and where to complete.
-- Every wait is bounded; a timeout is recorded in the output, the test reports it.
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv("EVALFIX_SPEC")), "\n"))
local out = { errors = {}, phases = {}, reports = {} }
-- "modern": lsp/evalfix_ls.lua with vim.lsp.config / vim.lsp.enable (0.11+);
-- "legacy": lua/evalfix_ls/legacy.lua (the FileType autocommand of 0.7, vim.lsp.start on 0.8+).
local modern = spec.setup == "modern"

local function write_output()
  vim.fn.writefile({ vim.fn.json_encode(out) }, spec.output)
end

-- Record every diagnostic report as the client receives it (push and pull), then let Neovim's
-- own handler turn it into vim.diagnostic entries.
local function record(method, version_of)
  local original = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    local uri = (result and result.uri) or (ctx.params and ctx.params.textDocument.uri)
    table.insert(out.reports, {
      method = method,
      uri = uri,
      version = version_of(result, ctx),
      items = result and (result.diagnostics or result.items) or vim.NIL,
      kind = result and result.kind or vim.NIL,
      error = err and err.message or vim.NIL,
    })
    return original(err, result, ctx, config)
  end
end
record("textDocument/publishDiagnostics", function(result)
  return result.version or vim.NIL
end)
record("textDocument/diagnostic", function(_, ctx)
  return ctx.version or vim.NIL
end)

-- The shipped configuration as a user installs it, with only the test's settings added (the
-- test puts the project's evalfix-ls first on $PATH, so the shipped `cmd` finds it).
vim.opt.runtimepath:prepend(spec.config_dir)
if modern then
  vim.lsp.config("evalfix_ls", { settings = spec.settings })
  vim.lsp.enable("evalfix_ls")
else
  require("evalfix_ls.legacy").setup({ settings = spec.settings })
end

local function clients(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf, name = "evalfix_ls" })
  end
  local found = {}
  for _, client in pairs(vim.lsp.buf_get_clients(buf)) do
    if client.name == "evalfix_ls" then
      table.insert(found, client)
    end
  end
  return found
end

local function wait(what, ms, condition)
  if not vim.wait(ms, condition, 50) then
    table.insert(out.errors, "timed out after " .. ms .. " ms waiting for " .. what)
    return false
  end
  return true
end

-- A report for this document at the buffer's current version.
local function report_for(uri, version)
  for i = #out.reports, 1, -1 do
    local report = out.reports[i]
    if report.uri == uri and report.version == version and report.items ~= vim.NIL then
      return report
    end
  end
  return nil
end

local function snapshot(buf, uri)
  local version = vim.lsp.util.buf_versions[buf]
  local report
  if
    not wait("diagnostics of version " .. tostring(version), spec.timeout_ms, function()
      report = report_for(uri, vim.lsp.util.buf_versions[buf])
      return report ~= nil
    end)
  then
    return { version = version }
  end
  -- vim.diagnostic columns are byte indexes into the buffer line: the editor's own unit.
  local shown = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(shown, {
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or vim.NIL,
      severity = d.severity,
    })
  end
  return { version = version, report = report, diagnostics = shown }
end

-- The 0-based byte column where `marker` starts on `line`.
local function byte_of(buf, line, marker)
  local text = vim.api.nvim_buf_get_lines(buf, line, line + 1, true)[1]
  local start = text:find(marker, 1, true)
  assert(start, "marker " .. marker .. " not on line " .. line)
  return start - 1
end

local function apply_edit(buf, edit)
  if edit.insert_line ~= nil then
    vim.api.nvim_buf_set_lines(buf, edit.line, edit.line, true, { edit.insert_line })
  else
    local col = byte_of(buf, edit.line, edit.replace)
    vim.api.nvim_buf_set_text(buf, edit.line, col, edit.line, col + #edit.replace, { edit.text })
  end
end

local function complete(buf, client)
  local request = spec.completion
  local col = byte_of(buf, request.line, request.after) + #request.after
  vim.api.nvim_win_set_cursor(0, { request.line + 1, col })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, spec.timeout_ms)
  local result = responses and responses[client.id] and responses[client.id].result
  if result == nil then
    table.insert(out.errors, "no completion response")
    return vim.NIL
  end
  local items = result.items or result
  local labels = {}
  for _, item in ipairs(items) do
    table.insert(labels, { label = item.label, textEdit = item.textEdit or vim.NIL })
  end
  return { position = params.position, items = labels }
end

-- The hover on the root object (line 0, character 0: the same in every encoding) of each file of
-- spec.hovers, opened in turn: what the server says the file is and why.
local function root_hovers()
  local hovers = {}
  for _, file in ipairs(spec.hovers or {}) do
    vim.cmd("hide edit " .. vim.fn.fnameescape(file))
    local buf = vim.api.nvim_get_current_buf()
    local attached = wait("the evalfix_ls client on " .. file, spec.timeout_ms, function()
      local found = clients(buf)[1]
      return found ~= nil and found.initialized
    end)
    if attached then
      local client = clients(buf)[1]
      local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 0, character = 0 } }
      local responses = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, spec.timeout_ms)
      local result = responses and responses[client.id] and responses[client.id].result
      hovers[file] = result and result.contents or vim.NIL
    end
  end
  return hovers
end

-- The code lenses of the suite: as the server answers them, and as Neovim itself keeps them for
-- display (vim.lsp.codelens.get, after a refresh), once one names a result (spec.lens_marker).
local function code_lenses(buf, client)
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeLens", params, spec.timeout_ms)
  local answered = {}
  for _, lens in ipairs(responses and responses[client.id] and responses[client.id].result or {}) do
    table.insert(answered, lens.command and lens.command.title or vim.NIL)
  end
  local function shown()
    local titles = {}
    for _, lens in ipairs(vim.lsp.codelens.get(buf) or {}) do
      if lens.command then
        table.insert(titles, lens.command.title)
      end
    end
    return titles
  end
  local function refresh()
    if vim.fn.has("nvim-0.10") == 1 then
      vim.lsp.codelens.refresh({ bufnr = buf })
    else
      vim.lsp.codelens.refresh()
    end
  end
  refresh()
  wait("a code lens naming " .. spec.lens_marker, spec.timeout_ms, function()
    for _, title in ipairs(shown()) do
      if title:find(spec.lens_marker, 1, true) then
        return true
      end
    end
    refresh()
    return false
  end)
  return { answered = answered, shown = shown() }
end

local function run()
  vim.cmd("edit " .. vim.fn.fnameescape(spec.file))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  if not wait("the evalfix_ls client", spec.timeout_ms, function()
    local found = clients(buf)[1]
    return found ~= nil and found.initialized
  end) then
    return
  end
  local client = clients(buf)[1]
  local v = vim.version()
  out.nvim = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  out.offset_encoding = client.offset_encoding
  out.completion_provider = client.server_capabilities.completionProvider ~= nil
  out.phases.initial = snapshot(buf, uri)
  if spec.lens_marker then
    out.lenses = code_lenses(buf, client)
  end
  if spec.lenses_only then -- a run tree of the corpus: only what the lenses show
    return
  end
  for _, edit in ipairs(spec.edits) do
    apply_edit(buf, edit)
  end
  out.text_after_edit = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  out.phases.edited = snapshot(buf, uri)
  if out.completion_provider then
    out.completion = complete(buf, client)
  end
  out.hovers = root_hovers()
end

local ok, problem = pcall(run)
if not ok then
  table.insert(out.errors, tostring(problem))
end
write_output()
vim.cmd("qa!")
