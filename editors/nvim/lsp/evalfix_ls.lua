-- evalfix-ls for Neovim 0.11+: put this file on 'runtimepath' as lsp/evalfix_ls.lua (for example
-- ~/.config/nvim/lsp/evalfix_ls.lua), then call vim.lsp.enable("evalfix_ls") from init.lua.
-- Override any field with vim.lsp.config("evalfix_ls", { ... }) before or after enabling.
return {
  -- `evalfix-ls` must be on $PATH (pipx install evalfix-ls, or a venv's bin/ directory).
  cmd = { "evalfix-ls" },
  -- The server decides by path and content which JSON files are fixtures (evals/evals.json,
  -- skills/<skill>/evals/**/*.json) and leaves every other JSON file alone.
  filetypes = { "json", "jsonc" },
  root_markers = { ".git", ".evalfix.toml", "pyproject.toml" },
  -- The server asks for the section `evalfix` (workspace/configuration) and asks again on
  -- workspace/didChangeConfiguration; the keys are those of .evalfix.toml (see the README).
  settings = {
    evalfix = {
      -- debounceMs = 60,            -- delay before push diagnostics after an edit (0-2000)
      -- workspaceDiagnostics = true, -- also check the fixture files that are not open
      -- severity = { ["files-legacy"] = "off" },
      -- files = { ["fixtures/**/*.json"] = "workflow" },
    },
  },
}
