" evalfix-ls with YouCompleteMe: source this file from your vimrc (before YCM starts), or copy
" the entry into your own g:ycm_language_server list. Not tested here; see the README's table.
" YCM's root markers must be files (a folder such as .git is not found: use .git/HEAD), and ycmd
" converts the server's UTF-16 columns itself.

let g:ycm_language_server = get(g:, 'ycm_language_server', []) + [
\   {
\     'name': 'evalfix-ls',
\     'cmdline': ['evalfix-ls'],
\     'filetypes': ['json'],
\     'project_root_files': ['.evalfix.toml', 'pyproject.toml', '.git/HEAD'],
\     'settings': {'evalfix': {'debounceMs': 60, 'workspaceDiagnostics': v:true}},
\   },
\ ]
