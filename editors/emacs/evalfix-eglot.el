;;; evalfix-eglot.el --- evalfix-ls with Eglot  -*- lexical-binding: t; -*-

;; Add this folder to `load-path' and `(require 'evalfix-eglot)' in your init file, or copy the
;; forms (with those of evalfix-mode.el).  Needs Eglot (built in from Emacs 29; Debian's
;; `elpa-eglot' or M-x package-install on 28) and `evalfix-ls' on `exec-path'.  Tested here with
;; Emacs 28.2 and Eglot 1.9 (tests/editors/test_emacs.py).

(require 'eglot)
(require 'evalfix-mode)

(add-to-list 'eglot-server-programs '(evalfix-json-mode . ("evalfix-ls")))

;; Settings: the keys of .evalfix.toml under the section `evalfix' (the server asks for it with
;; workspace/configuration).  Set it per project in .dir-locals.el, e.g.
;;   ((nil . ((eglot-workspace-configuration
;;             . (:evalfix (:severity (:files-legacy "off") :debounceMs 100))))))
;; or globally (this replaces the sections of your other servers, so merge them in):
;;   (setq-default eglot-workspace-configuration '(:evalfix (:debounceMs 100)))

(add-hook 'evalfix-json-mode-hook #'eglot-ensure)

(provide 'evalfix-eglot)
;;; evalfix-eglot.el ends here
