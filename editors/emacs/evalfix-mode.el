;;; evalfix-mode.el --- a major mode for AI-agent eval fixtures  -*- lexical-binding: t; -*-

;; Shared by evalfix-eglot.el and evalfix-lsp-mode.el: the mode that marks fixture files and the
;; project root they belong to.

(require 'project)

;; A mode of its own for the fixture files, so that Eglot starts evalfix-ls for them and leaves
;; other JSON files to whatever server you use there.  It derives from `js-mode' (what Emacs 28
;; uses for .json; 29+ has `js-json-mode', derived from it).
(define-derived-mode evalfix-json-mode js-mode "Evalfix-JSON"
  "Major mode for eval suites (evals/evals.json) and workflow eval fixtures (skills/*/evals/**.json).")

(add-to-list 'auto-mode-alist '("/evals/evals\\.json\\'" . evalfix-json-mode))
(add-to-list 'auto-mode-alist '("/skills/[^/]+/evals/.*\\.json\\'" . evalfix-json-mode))

;; The project root: the nearest folder holding .evalfix.toml, else what project.el finds (the Git
;; root).  Emacs 29+ can say this with `project-vc-extra-root-markers' instead.
(defun evalfix-project-find (dir)
  "A transient project rooted at the nearest folder above DIR holding .evalfix.toml."
  (let ((root (locate-dominating-file dir ".evalfix.toml")))
    (and root (cons 'transient (expand-file-name root)))))
(add-hook 'project-find-functions #'evalfix-project-find)

(provide 'evalfix-mode)
;;; evalfix-mode.el ends here
