-- Shared by the 0.7 and nvim-lspconfig setups: the values of lsp/evalfix_ls.lua (the 0.11+
-- config, the one source of them), read from 'runtimepath'.
local M = {}

function M.defaults()
  local file = vim.api.nvim_get_runtime_file("lsp/evalfix_ls.lua", false)[1]
  assert(file, "evalfix_ls: lsp/evalfix_ls.lua is not on 'runtimepath' (add editors/nvim to it)")
  return dofile(file)
end

return M
