;;; lsp_mode_driver.el --- drive Emacs + lsp-mode headless for test_emacs_lsp_mode.py  -*- lexical-binding: t; -*-

;; emacs --batch -l lsp_mode_driver.el, with EVALFIX_SPEC=<spec.json>: load the shipped
;; editors/emacs/evalfix-lsp-mode.el, open the suite, record the raw publishDiagnostics and what
;; Flymake shows, edit through the buffer, record again, write it all as JSON. The shipped hook
;; (`lsp-deferred') starts the client from an idle timer, which batch Emacs never runs: the driver
;; calls what that timer would, `lsp--init-if-visible'.

(load (expand-file-name "emacs_driver.el" (file-name-directory load-file-name)) nil t)
(defvar evalfix-reports nil "Every publishDiagnostics (lsp-mode's hash tables), newest first.")

;; A quiet session: no session file outside the test's HOME, no prompts, no UI modes.
(setq lsp-session-file (expand-file-name "lsp-session" (getenv "HOME"))
      lsp-auto-guess-root t
      lsp-restart 'ignore
      lsp-enable-file-watchers nil
      lsp-enable-snippet nil
      lsp-keep-workspace-alive nil
      lsp-diagnostics-provider :flymake
      lsp-headerline-breadcrumb-enable nil
      lsp-modeline-code-actions-enable nil
      lsp-modeline-diagnostics-enable nil
      lsp-modeline-workspace-status-enable nil)

;; The shipped configuration as a user installs it; the test puts evalfix-ls first on PATH.
(add-to-list 'load-path (evalfix-spec :config_dir))
(require 'evalfix-lsp-mode)

(advice-add 'lsp--on-diagnostics :before
            (lambda (_workspace params) (push params evalfix-reports)))

(defun evalfix-report-for (uri version)
  (cl-find-if (lambda (r) (and (equal (gethash "uri" r) uri) (equal (gethash "version" r) version)))
              evalfix-reports))

(defun evalfix-shown ()
  "What Flymake shows: positions in characters (lsp-mode puts no code in its Flymake entries)."
  (mapcar (lambda (d)
            (list :start (evalfix-position (flymake-diagnostic-beg d))
                  :end (evalfix-position (flymake-diagnostic-end d))
                  :type (symbol-name (flymake-diagnostic-type d))))
          (flymake-diagnostics)))

(defun evalfix-record (uri)
  "The report of URI at the buffer's current version, and what Flymake shows of it."
  (evalfix-snapshot uri (lambda () lsp--cur-version) #'evalfix-report-for #'evalfix-shown))

(defun evalfix-run ()
  (find-file (evalfix-spec :file))
  (evalfix-put :major_mode (symbol-name major-mode))
  (evalfix-put :deferred (and (bound-and-true-p lsp--buffer-deferred) t)) ; the shipped hook ran
  (lsp--init-if-visible)
  (when (evalfix-wait "the lsp-mode connection" (lambda () (and lsp-mode (lsp-workspaces))))
    (let ((uri (lsp--path-to-uri buffer-file-name)))
      (evalfix-put :emacs emacs-version)
      (evalfix-put :initial (evalfix-record uri))
      (evalfix-put :flymake flymake-mode)
      (mapc #'evalfix-edit (evalfix-spec :edits)) ; lsp-mode sends didChange from after-change
      (evalfix-put :text_after_edit (buffer-substring-no-properties (point-min) (point-max)))
      (evalfix-put :edited (evalfix-record uri)))))

(evalfix-finish #'evalfix-run)
