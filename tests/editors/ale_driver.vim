" Drives Vim 9 + ALE headless for test_vim_ale.py:
"   vim -N -u NONE -i NONE -es -S ale_driver.vim   with EVALFIX_SPEC=<spec.json>
" Loads Debian's ALE (an optional package) and the shipped editors/vim/ale_linters/json/
" evalfix_ls.vim, opens the suite, records the raw publishDiagnostics and ALE's loclist, edits the
" buffer, lints again, completes, and writes it all as JSON. Every wait is bounded; a timeout is
" recorded in the output, the test reports it.
let s:spec = json_decode(join(readfile($EVALFIX_SPEC), "\n"))
let s:out = {'errors': [], 'reports': []}
let s:lint_posts = 0
let s:hooked = {}

function! s:Write() abort
    call writefile([json_encode(s:out)], s:spec.output)
endfunction

" The shipped linter file as a user installs it (editors/vim on 'runtimepath'); the test puts
" evalfix-ls first on $PATH, the linter's default executable.
execute 'set runtimepath^=' . fnameescape(s:spec.config_dir)
packadd ale
filetype on
let g:ale_linters = {'json': ['evalfix_ls']}
let g:ale_json_evalfix_ls_config = s:spec.settings

function! s:OnMessage(conn_id, message) abort
    if get(a:message, 'method', '') is# 'textDocument/publishDiagnostics'
        call add(s:out.reports, a:message.params)
    endif
endfunction

" Every message of the connection, from the moment ALE has initialized it (before didOpen).
function! s:Hook() abort
    for l:id in keys(ale#lsp#GetConnections())
        if !has_key(s:hooked, l:id)
            let s:hooked[l:id] = 1
            call ale#lsp#RegisterCallback(l:id, function('s:OnMessage'))
        endif
    endfor
endfunction

augroup evalfix_driver
    autocmd!
    autocmd User ALELSPStarted call s:Hook()
    autocmd User ALELintPost let s:lint_posts += 1
augroup END

function! s:Wait(what, Condition) abort
    let l:deadline = reltimefloat(reltime()) + s:spec.timeout_ms / 1000.0
    while !a:Condition() && reltimefloat(reltime()) < l:deadline
        sleep 50m
    endwhile
    if !a:Condition()
        call add(s:out.errors, 'timed out waiting for ' . a:what)
        return 0
    endif
    return 1
endfunction

function! s:ReportFor(uri, version) abort
    for l:report in reverse(copy(s:out.reports))
        if l:report.uri is# a:uri && get(l:report, 'version', v:null) == a:version
            return l:report
        endif
    endfor
    return {}
endfunction

" ALE numbers document versions with one global counter: the last one it sent.
function! s:LastVersion() abort
    return g:ale_lsp_next_version_id - 1
endfunction

function! s:Snapshot(uri) abort
    let l:posts = s:lint_posts
    ALELint
    let l:version = s:LastVersion()
    let l:found = {}
    if !s:Wait('diagnostics of version ' . l:version,
    \   {-> !empty(s:ReportFor(a:uri, s:LastVersion())) && s:lint_posts > l:posts})
        return {'version': l:version}
    endif
    let l:shown = []
    for l:item in ale#engine#GetLoclist(bufnr(''))
        call add(l:shown, {'lnum': l:item.lnum, 'col': l:item.col, 'end_lnum': get(l:item, 'end_lnum', -1),
        \   'end_col': get(l:item, 'end_col', -1), 'code': get(l:item, 'code', ''), 'type': l:item.type})
    endfor
    return {'version': s:LastVersion(), 'report': s:ReportFor(a:uri, s:LastVersion()), 'loclist': l:shown}
endfunction

" 0-based byte index where `marker` starts on 0-based line `line`.
function! s:ByteOf(line, marker) abort
    let l:at = stridx(getline(a:line + 1), a:marker)
    if l:at < 0
        throw 'marker ' . a:marker . ' not on line ' . a:line
    endif
    return l:at
endfunction

function! s:Edit(edit) abort
    if has_key(a:edit, 'insert_line')
        call append(a:edit.line, a:edit.insert_line)
    else
        let l:text = getline(a:edit.line + 1)
        let l:at = s:ByteOf(a:edit.line, a:edit.replace)
        call setline(a:edit.line + 1, strpart(l:text, 0, l:at) . a:edit.text . strpart(l:text, l:at + len(a:edit.replace)))
    endif
endfunction

function! s:OnCompletion(items) abort
    let s:completion_items = a:items
endfunction

" ALE takes completion results only in insert mode, which a Vim running a script (-es) never is:
" report insert mode while completing, through the seam ALE's own test suite mocks (its wrapper
" of mode()), once ALE's util.vim is loaded.
let s:completing = 0
runtime autoload/ale/util.vim
function! ale#util#Mode(...) abort
    return s:completing ? 'i' : call('mode', a:000)
endfunction

function! s:Complete() abort
    let s:completing = 1
    let l:request = s:spec.completion
    let l:line = l:request.line + 1
    let l:column = s:ByteOf(l:request.line, l:request.after) + len(l:request.after) + 1
    call cursor(l:line, l:column)
    let s:completion_items = v:null
    call ale#completion#GetCompletions('ale-callback',
    \   {'callback': function('s:OnCompletion'), 'line': l:line, 'column': l:column})
    call s:Wait('completion items', {-> s:completion_items isnot v:null})
    let s:completing = 0
    let l:labels = []
    for l:item in s:completion_items is v:null ? [] : s:completion_items
        call add(l:labels, {'label': l:item.word})
    endfor
    return {'line': l:line, 'column': l:column, 'items': l:labels}
endfunction

function! s:Run() abort
    execute 'edit ' . fnameescape(s:spec.file)
    let s:out.filetype = &filetype
    let s:out.vim = v:version
    let l:uri = ale#util#ToURI(expand('%:p'))
    let s:out.initial = s:Snapshot(l:uri)
    if has_key(s:out.initial, 'report')
        let l:conn = values(ale#lsp#GetConnections())[0]
        let s:out.completion_provider = get(l:conn.capabilities, 'completion', 0) ? v:true : v:false
    endif
    for l:edit in s:spec.edits
        call s:Edit(l:edit)
    endfor
    let s:out.text_after_edit = getline(1, '$')
    let s:out.edited = s:Snapshot(l:uri)
    if get(s:out, 'completion_provider', v:false)
        let s:out.completion = s:Complete()
    endif
endfunction

try
    call s:Run()
catch
    call add(s:out.errors, v:exception . ' at ' . v:throwpoint)
endtry
call s:Write()
qa!
