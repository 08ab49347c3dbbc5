;;; eglot_driver.el --- drive Emacs + Eglot headless for test_emacs_eglot.py  -*- lexical-binding: t; -*-

;; emacs --batch -l eglot_driver.el, with EVALFIX_SPEC=<spec.json> (written by the test): load the
;; shipped editors/emacs/evalfix-eglot.el, open the suite, record the raw publishDiagnostics and
;; what Flymake shows, edit through the buffer, record again, complete, write it all as JSON.
;; Batch Emacs runs no command loop: the driver runs `post-command-hook' once (where
;; `eglot-ensure' connects), starts Flymake and flushes Eglot's pending didChange itself.
;; Every wait is bounded; a timeout is recorded in the output, the test reports it.

(require 'json)
(require 'cl-lib)

(defvar evalfix-spec
  (let ((json-object-type 'plist) (json-array-type 'list))
    (json-read-file (getenv "EVALFIX_SPEC"))))
(defvar evalfix-out (list :errors nil))
(defvar evalfix-reports nil "Every publishDiagnostics, newest first.")

(defun evalfix-spec (key) (plist-get evalfix-spec key))
(defun evalfix-error (text) (setq evalfix-out (plist-put evalfix-out :errors (append (plist-get evalfix-out :errors) (list text)))))
(defun evalfix-put (key value) (setq evalfix-out (plist-put evalfix-out key value)))

;; The shipped configuration as a user installs it; the test puts evalfix-ls first on PATH.
(add-to-list 'load-path (evalfix-spec :config_dir))
(require 'evalfix-eglot)
(setq-default eglot-workspace-configuration (evalfix-spec :settings))

(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest params)
              (when (eq method 'textDocument/publishDiagnostics)
                (push params evalfix-reports))))

(defun evalfix-wait (what predicate)
  "Process output until PREDICATE holds or the spec's timeout passes; record a timeout."
  (let ((deadline (+ (float-time) (/ (evalfix-spec :timeout_ms) 1000.0))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or (funcall predicate)
        (progn (evalfix-error (format "timed out waiting for %s" what)) nil))))

(defun evalfix-report-for (uri version)
  (cl-find-if (lambda (r) (and (equal (plist-get r :uri) uri) (equal (plist-get r :version) version)))
              evalfix-reports))

(defun evalfix-position (pos)
  "0-based line and column (Emacs characters) of buffer position POS."
  (save-excursion
    (goto-char pos)
    (list (1- (line-number-at-pos pos)) (- pos (line-beginning-position)))))

(defun evalfix-shown ()
  "What Flymake shows: positions in characters, the code from the LSP diagnostic."
  (mapcar (lambda (d)
            (let ((lsp (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d))))
              (list :start (evalfix-position (flymake-diagnostic-beg d))
                    :end (evalfix-position (flymake-diagnostic-end d))
                    :code (plist-get lsp :code)
                    :type (symbol-name (flymake-diagnostic-type d)))))
          (flymake-diagnostics)))

(defun evalfix-snapshot (uri)
  (let* ((version eglot--versioned-identifier) report)
    (if (not (evalfix-wait (format "diagnostics of version %s" version)
                           (lambda () (setq report (evalfix-report-for uri eglot--versioned-identifier)))))
        (list :version version)
      (flymake-start)
      (list :version version :report report :diagnostics (vconcat (evalfix-shown))))))

(defun evalfix-goto-after (line marker)
  (goto-char (point-min))
  (forward-line line)
  (search-forward marker (line-end-position)))

(defun evalfix-edit (edit)
  (if (plist-get edit :insert_line)
      (progn (goto-char (point-min))
             (forward-line (plist-get edit :line))
             (insert (plist-get edit :insert_line) "\n"))
    (evalfix-goto-after (plist-get edit :line) (plist-get edit :replace))
    (replace-match (plist-get edit :text) t t)))

(defun evalfix-complete ()
  (let ((request (evalfix-spec :completion)))
    (evalfix-goto-after (plist-get request :line) (plist-get request :after))
    (let* ((capf (eglot-completion-at-point))
           (labels (and capf (all-completions "" (nth 2 capf)))))
      (list :position (evalfix-position (point))
            :items (vconcat (mapcar (lambda (label) (list :label (substring-no-properties label))) labels))))))

(defun evalfix-run ()
  (find-file (evalfix-spec :file))
  (evalfix-put :major_mode (symbol-name major-mode))
  (run-hooks 'post-command-hook) ; where eglot-ensure connects (no command loop in batch)
  (when (evalfix-wait "the Eglot connection" (lambda () (and eglot--managed-mode (eglot-current-server))))
    (let ((uri (eglot--path-to-uri buffer-file-name)))
      (evalfix-put :emacs emacs-version)
      (evalfix-put :flymake flymake-mode)
      (evalfix-put :completion_provider (and (eglot--server-capable :completionProvider) t))
      (evalfix-put :initial (evalfix-snapshot uri))
      (mapc #'evalfix-edit (evalfix-spec :edits))
      (eglot--signal-textDocument/didChange) ; Eglot sends it from an idle timer otherwise
      (evalfix-put :text_after_edit (buffer-substring-no-properties (point-min) (point-max)))
      (evalfix-put :edited (evalfix-snapshot uri))
      (when (plist-get evalfix-out :completion_provider)
        (evalfix-put :completion (evalfix-complete))))))

(condition-case problem
    (evalfix-run)
  (error (evalfix-error (error-message-string problem))))
(setq evalfix-out (plist-put evalfix-out :errors (vconcat (plist-get evalfix-out :errors))))
(with-temp-file (evalfix-spec :output)
  (set-buffer-file-coding-system 'utf-8)
  (insert (json-encode evalfix-out)))
(kill-emacs 0)
