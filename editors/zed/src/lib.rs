//! Starts `evalfix-ls` (from `lsp.evalfix-ls.binary` in the settings, else from $PATH) and hands
//! it the `lsp.evalfix-ls.settings` object as its `evalfix` configuration section.
use zed_extension_api::{self as zed, serde_json, settings::LspSettings};

struct EvalfixExtension;

impl zed::Extension for EvalfixExtension {
    fn new() -> Self {
        Self
    }

    fn language_server_command(
        &mut self,
        server_id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<zed::Command> {
        let binary = LspSettings::for_worktree(server_id.as_ref(), worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let configured = binary.as_ref().and_then(|b| b.path.clone());
        let command = configured
            .or_else(|| worktree.which("evalfix-ls"))
            .ok_or("evalfix-ls is not on PATH; install it (pipx install evalfix-ls) or set lsp.evalfix-ls.binary.path")?;
        let args = binary.and_then(|b| b.arguments).unwrap_or_default();
        Ok(zed::Command { command, args, env: Default::default() })
    }

    fn language_server_workspace_configuration(
        &mut self,
        server_id: &zed::LanguageServerId,
        worktree: &zed::Worktree,
    ) -> zed::Result<Option<serde_json::Value>> {
        let settings = LspSettings::for_worktree(server_id.as_ref(), worktree)
            .ok()
            .and_then(|s| s.settings)
            .unwrap_or_default();
        Ok(Some(serde_json::json!({ "evalfix": settings })))
    }
}

zed::register_extension!(EvalfixExtension);
