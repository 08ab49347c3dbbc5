;;; emacs_driver.el --- what the Emacs drivers share  -*- lexical-binding: t; -*-

;; Loaded by eglot_driver.el and lsp_mode_driver.el: the spec the test wrote (EVALFIX_SPEC), the
;; output plist, bounded waits, positions in Emacs characters, the edits, and writing the JSON.

(require 'json)
(require 'cl-lib)

(defvar evalfix-spec
  (let ((json-object-type 'plist) (json-array-type 'list))
    (json-read-file (getenv "EVALFIX_SPEC"))))
(defvar evalfix-out (list :errors nil))

(defun evalfix-spec (key) (plist-get evalfix-spec key))
(defun evalfix-error (text)
  (setq evalfix-out (plist-put evalfix-out :errors (append (plist-get evalfix-out :errors) (list text)))))
(defun evalfix-put (key value) (setq evalfix-out (plist-put evalfix-out key value)))

(defun evalfix-wait (what predicate)
  "Process output until PREDICATE holds or the spec's timeout passes; record a timeout."
  (let ((deadline (+ (float-time) (/ (evalfix-spec :timeout_ms) 1000.0))))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or (funcall predicate)
        (progn (evalfix-error (format "timed out waiting for %s" what)) nil))))

(defun evalfix-position (pos)
  "0-based line and column (Emacs characters) of buffer position POS."
  (save-excursion
    (goto-char pos)
    (list (1- (line-number-at-pos pos)) (- pos (line-beginning-position)))))

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

(defun evalfix-snapshot (uri current-version report-for shown)
  "Wait for the report of URI at (CURRENT-VERSION), found by (REPORT-FOR URI VERSION); then start
Flymake and return the version, the raw report and (SHOWN)."
  (let ((version (funcall current-version)) report)
    (if (not (evalfix-wait (format "diagnostics of version %s" version)
                           (lambda () (setq report (funcall report-for uri (funcall current-version))))))
        (list :version version)
      (flymake-start)
      (list :version version :report report :diagnostics (vconcat (funcall shown))))))

(defun evalfix-finish (run)
  "Call RUN, record any error, write the output as JSON and leave Emacs."
  (condition-case problem
      (funcall run)
    (error (evalfix-error (error-message-string problem))))
  (setq evalfix-out (plist-put evalfix-out :errors (vconcat (plist-get evalfix-out :errors))))
  (with-temp-file (evalfix-spec :output)
    (set-buffer-file-coding-system 'utf-8)
    (insert (json-encode evalfix-out)))
  (kill-emacs 0))

(provide 'emacs_driver)
;;; emacs_driver.el ends here
