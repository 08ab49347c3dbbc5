"""Editor-side configuration: ``initializationOptions`` and ``workspace/configuration`` (section
``evalfix``, per workspace folder), layered over the project file (``config/``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from ...config.model import Config
from ...config.parse import parse_settings
from ...config.project_config import ProjectConfigs
from .workspace_index import WorkspaceIndex

logger = logging.getLogger(__name__)

SECTION = "evalfix"


def section_of(value: object) -> object:
    """Our section of a settings object: ``{"evalfix": {...}}`` or the section itself (client JSON,
    checked by ``parse_settings``)."""
    if isinstance(value, Mapping) and SECTION in value:
        return value[SECTION]
    return value


class Settings:
    """The effective ``Config`` of every file, cached per (project file, workspace folder)."""

    def __init__(self, workspace: WorkspaceIndex) -> None:
        self.workspace = workspace
        # What the client sent (JSON of any shape: ``parse_settings`` reports what it cannot use).
        self.init_options: object = None
        self.global_settings: object = None
        self.folder_settings: dict[Path, object] = {}
        self.generation = 0
        self._configs: dict[tuple[Path | None, Path | None], Config] = {}
        self._projects = ProjectConfigs()
        self._reported: set[str] = set()

    def changed(self) -> None:
        """Forget everything derived (settings or a project file changed)."""
        self.generation += 1
        self._configs.clear()
        self._projects = ProjectConfigs()

    def set_client_settings(self, global_settings: object, per_folder: dict[Path, object]) -> None:
        self.global_settings = section_of(global_settings)
        self.folder_settings = {folder: section_of(value) for folder, value in per_folder.items()}
        self.changed()

    def config_for(self, path: Path | None) -> Config:
        if path is None:
            return self._config(None, None, None)
        folder = self.workspace.folder_for(path)
        return self._config(self._projects.project_file(path.parent), folder, path.parent)

    def folder_config(self, folder: Path) -> Config:
        return self._config(self._projects.project_file(folder), folder, folder)

    def _config(self, project: Path | None, folder: Path | None, fallback_dir: Path | None) -> Config:
        key = (project, folder)
        config = self._configs.get(key)
        if config is not None:
            return config
        base = folder or (project.parent if project else None) or fallback_dir or Path.cwd()
        config = self._projects.load(project).merged(
            parse_settings(section_of(self.init_options), base_dir=base, origin="initializationOptions")
        )
        client = self.folder_settings.get(folder) if folder is not None else None
        if client is None:
            client = self.global_settings
        config = config.merged(parse_settings(client, base_dir=base, origin="settings (evalfix)"))
        self._configs[key] = config
        for problem in config.problems:
            if problem not in self._reported:
                self._reported.add(problem)
                logger.warning("configuration: %s", problem)
        return config
