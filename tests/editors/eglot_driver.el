;;; eglot_driver.el --- drive Emacs + Eglot headless for test_emacs_eglot.py  -*- lexical-binding: t; -*-

;; emacs --batch -l eglot_driver.el, with EVALFIX_SPEC=<spec.json> (written by the test): load the
;; shipped editors/emacs/evalfix-eglot.el, open the suite, record the raw publishDiagnostics and
;; what Flymake shows, edit through the buffer, record again, complete, write it all as JSON.
;; Batch Emacs runs no command loop: the driver runs `post-command-hook' once (where
;; `eglot-ensure' connects), starts Flymake and flushes Eglot's pending didChange itself.
;; Every wait is bounded; a timeout is recorded in the output, the test reports it.

(load (expand-file-name "emacs_driver.el" (file-name-directory load-file-name)) nil t)
(defvar evalfix-reports nil "Every publishDiagnostics, newest first.")

;; The shipped configuration as a user installs it; the test puts evalfix-ls first on PATH.
(add-to-list 'load-path (evalfix-spec :config_dir))
(require 'evalfix-eglot)
(setq-default eglot-workspace-configuration (evalfix-spec :settings))

(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest params)
              (when (eq method 'textDocument/publishDiagnostics)
                (push params evalfix-reports))))

(defun evalfix-report-for (uri version)
  (cl-find-if (lambda (r) (and (equal (plist-get r :uri) uri) (equal (plist-get r :version) version)))
              evalfix-reports))

(defun evalfix-shown ()
  "What Flymake shows: positions in characters, the code from the LSP diagnostic."
  (mapcar (lambda (d)
            (let ((lsp (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d))))
              (list :start (evalfix-position (flymake-diagnostic-beg d))
                    :end (evalfix-position (flymake-diagnostic-end d))
                    :code (plist-get lsp :code)
                    :type (symbol-name (flymake-diagnostic-type d)))))
          (flymake-diagnostics)))

(defun evalfix-complete ()
  (let ((request (evalfix-spec :completion)))
    (evalfix-goto-after (plist-get request :line) (plist-get request :after))
    (let* ((capf (eglot-completion-at-point))
           (labels (and capf (all-completions "" (nth 2 capf)))))
      (list :position (evalfix-position (point))
            :items (vconcat (mapcar (lambda (label) (list :label (substring-no-properties label))) labels))))))

(defun evalfix-record (uri)
  "The report of URI at the buffer's current version, and what Flymake shows of it."
  (evalfix-snapshot uri (lambda () eglot--versioned-identifier) #'evalfix-report-for #'evalfix-shown))

(defun evalfix-run ()
  (find-file (evalfix-spec :file))
  (evalfix-put :major_mode (symbol-name major-mode))
  (run-hooks 'post-command-hook) ; where eglot-ensure connects (no command loop in batch)
  (when (evalfix-wait "the Eglot connection" (lambda () (and eglot--managed-mode (eglot-current-server))))
    (let ((uri (eglot--path-to-uri buffer-file-name)))
      (evalfix-put :emacs emacs-version)
      (evalfix-put :flymake flymake-mode)
      (evalfix-put :completion_provider (and (eglot--server-capable :completionProvider) t))
      (evalfix-put :initial (evalfix-record uri))
      (mapc #'evalfix-edit (evalfix-spec :edits))
      (eglot--signal-textDocument/didChange) ; Eglot sends it from an idle timer otherwise
      (evalfix-put :text_after_edit (buffer-substring-no-properties (point-min) (point-max)))
      (evalfix-put :edited (evalfix-record uri))
      (when (plist-get evalfix-out :completion_provider)
        (evalfix-put :completion (evalfix-complete))))))

(evalfix-finish #'evalfix-run)
