;;; evalfix-lsp-mode.el --- evalfix-ls with lsp-mode  -*- lexical-binding: t; -*-

;; Add this folder to `load-path' and `(require 'evalfix-lsp-mode)' in your init file.  Needs
;; lsp-mode (8.0+) and `evalfix-ls' on `exec-path'.  Tested with Emacs 28.2 and lsp-mode 8.0.0
;; (tests/editors/test_emacs_lsp_mode.py).  lsp-mode counts the server's UTF-16 columns as Emacs
;; characters and offers no `positionEncodings', so after an emoji or another character outside
;; the BMP a diagnostic starts one character late per such character; Eglot converts correctly.

(require 'lsp-mode)
;; Debian's elpa-lsp-mode 8.0.0 has no autoloads for lsp-mode's sub-libraries: without this,
;; `lsp-diagnostics-mode' never starts and no diagnostic is shown.  Harmless elsewhere.
(require 'lsp-diagnostics)
(require 'evalfix-mode)

(defgroup evalfix nil "evalfix-ls settings." :group 'lsp-mode)

(defcustom evalfix-debounce-ms 60
  "Delay before push diagnostics after an edit, in milliseconds (0-2000)."
  :type 'integer)

(defcustom evalfix-workspace-diagnostics t
  "Whether the server also checks the fixture files that are not open."
  :type 'boolean)

;; Answered when the server asks for section `evalfix' (workspace/configuration).  Severity
;; overrides and file globs: put them in .evalfix.toml, which the server reads as well.
(lsp-register-custom-settings
 '(("evalfix.debounceMs" evalfix-debounce-ms)
   ("evalfix.workspaceDiagnostics" evalfix-workspace-diagnostics t)))

(add-to-list 'lsp-language-id-configuration '(evalfix-json-mode . "json"))

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection '("evalfix-ls"))
  :major-modes '(evalfix-json-mode)
  :server-id 'evalfix-ls
  ;; Runs beside a JSON server (vscode-json-languageserver) if you use one for these files too.
  :add-on? t
  :initialized-fn (lambda (workspace)
                    (with-lsp-workspace workspace
                      (lsp--set-configuration (lsp-configuration-section "evalfix"))))))

(add-hook 'evalfix-json-mode-hook #'lsp-deferred)

(provide 'evalfix-lsp-mode)
;;; evalfix-lsp-mode.el ends here
