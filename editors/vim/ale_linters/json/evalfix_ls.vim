" evalfix-ls as an ALE linter for JSON (ALE 3.x). Put this folder (editors/vim) on 'runtimepath'
" (set runtimepath+=/path/to/evalfix-ls/editors/vim, or copy ale_linters/json/evalfix_ls.vim
" into ~/.vim/ale_linters/json/) and ALE finds it. Tested with Vim 9.0 and ALE 3.3.0
" (tests/editors/test_vim_ale.py).
"
"   let g:ale_json_evalfix_ls_executable = 'evalfix-ls'   " default; or an absolute path
"   let g:ale_json_evalfix_ls_config = {'evalfix': {'severity': {'files-legacy': 'off'}}}
"   let g:ale_linters = {'json': ['evalfix_ls']}          " only this one for JSON, if you like
"
" ALE treats the server's UTF-16 columns as byte columns and offers no positionEncodings: after
" CJK text or an emoji on a line, the column ALE shows is too small (see the README's table).

call ale#Set('json_evalfix_ls_executable', 'evalfix-ls')
call ale#Set('json_evalfix_ls_config', {})

" The nearest folder holding .evalfix.toml, .git or pyproject.toml; else the file's own folder
" (ALE starts no LSP server without a root).
function! ale_linters#json#evalfix_ls#GetProjectRoot(buffer) abort
    for l:marker in ['.evalfix.toml', 'pyproject.toml']
        let l:found = ale#path#FindNearestFile(a:buffer, l:marker)

        if !empty(l:found)
            return fnamemodify(l:found, ':h')
        endif
    endfor

    let l:git = ale#path#FindNearestDirectory(a:buffer, '.git')

    return !empty(l:git) ? fnamemodify(l:git, ':h:h') : expand('#' . a:buffer . ':p:h')
endfunction

call ale#linter#Define('json', {
\   'name': 'evalfix_ls',
\   'lsp': 'stdio',
\   'executable': {b -> ale#Var(b, 'json_evalfix_ls_executable')},
\   'command': '%e',
\   'project_root': function('ale_linters#json#evalfix_ls#GetProjectRoot'),
\   'lsp_config': {b -> ale#Var(b, 'json_evalfix_ls_config')},
\})
