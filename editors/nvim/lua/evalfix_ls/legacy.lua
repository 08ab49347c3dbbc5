-- evalfix-ls for Neovim 0.7 (and later without nvim-lspconfig): add editors/nvim to 'runtimepath',
-- then in init.lua:
--
--   require("evalfix_ls.legacy").setup({ cmd = { "/path/to/evalfix-ls" } })  -- every field optional
--
-- A FileType autocommand starts one client per root directory and attaches each buffer to it:
-- vim.lsp.start on 0.8+, vim.lsp.start_client + vim.lsp.buf_attach_client on 0.7.
local M = {}

local function find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  while true do
    for _, marker in ipairs(markers) do
      if vim.loop.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return vim.fn.fnamemodify(path, ":p:h") -- no marker: the file's own folder
    end
    dir = parent
  end
end

function M.setup(overrides)
  local config = vim.tbl_deep_extend(
    "force",
    require("evalfix_ls").defaults(),
    overrides or {}
  )
  local clients = {} -- root directory -> client id (0.7)
  local function attach(args)
    local path = vim.api.nvim_buf_get_name(args.buf)
    if path == "" then
      return
    end
    local root = find_root(path, config.root_markers)
    local client_config = {
      name = "evalfix_ls",
      cmd = config.cmd,
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      settings = config.settings,
      -- 0.7 does not offer workspace/configuration, so the server cannot ask: push the settings
      -- once it is up, as nvim-lspconfig does (harmless on later versions, which also answer).
      on_init = function(client)
        client.notify("workspace/didChangeConfiguration", { settings = config.settings })
      end,
    }
    if vim.lsp.start then
      vim.lsp.start(client_config, { bufnr = args.buf }) -- reuses the client of the same root
      return
    end
    local id = clients[root]
    if id == nil or vim.lsp.get_client_by_id(id) == nil then
      id = vim.lsp.start_client(client_config)
      clients[root] = id
    end
    if id then
      vim.lsp.buf_attach_client(args.buf, id)
    end
  end
  vim.api.nvim_create_autocmd("FileType", {
    group = vim.api.nvim_create_augroup("evalfix_ls", { clear = true }),
    pattern = config.filetypes,
    callback = attach,
  })
end

return M
