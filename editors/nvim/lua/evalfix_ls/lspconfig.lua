-- evalfix-ls for Neovim 0.8-0.10 with nvim-lspconfig: add editors/nvim to 'runtimepath' (it holds
-- lsp/evalfix_ls.lua and lua/evalfix_ls/), then:
--
--   require("evalfix_ls.lspconfig").register()
--   require("lspconfig").evalfix_ls.setup({})   -- any field of the config below can be overridden
--
-- The values are those of lsp/evalfix_ls.lua (the 0.11+ config). nvim-lspconfig sends `settings`
-- itself (workspace/didChangeConfiguration on init, and answers workspace/configuration).
local M = {}

function M.register()
  local configs = require("lspconfig.configs")
  local util = require("lspconfig.util")
  if configs.evalfix_ls then
    return
  end
  local base = require("evalfix_ls").defaults()
  configs.evalfix_ls = {
    default_config = {
      cmd = base.cmd,
      filetypes = base.filetypes,
      root_dir = util.root_pattern(unpack(base.root_markers)),
      single_file_support = true,
      settings = base.settings,
    },
    docs = { description = "evalfix-ls: diagnostics for evals/evals.json and workflow eval fixtures" },
  }
end

return M
