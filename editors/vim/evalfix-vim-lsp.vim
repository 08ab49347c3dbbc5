" evalfix-ls with vim-lsp (prabirshrestha/vim-lsp): source this file from your vimrc, or copy it.
" Not tested here (vim-lsp is not packaged for Debian); see the README's editor table.
" vim-lsp offers UTF-16 positions and converts them to byte columns.

if executable('evalfix-ls')
    augroup evalfix_ls
        autocmd!
        autocmd User lsp_setup call lsp#register_server({
        \   'name': 'evalfix-ls',
        \   'cmd': {server_info -> ['evalfix-ls']},
        \   'allowlist': ['json', 'jsonc'],
        \   'root_uri': {server_info -> lsp#utils#path_to_uri(
        \       lsp#utils#find_nearest_parent_file_directory(
        \           lsp#utils#get_buffer_path(), ['.evalfix.toml', '.git/', 'pyproject.toml']))},
        \   'workspace_config': {'evalfix': {'debounceMs': 60, 'workspaceDiagnostics': v:true}},
        \ })
    augroup END
endif
