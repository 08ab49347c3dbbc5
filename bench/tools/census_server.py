"""``bench.soak_server`` plus ``evalfix/bench/census``: the arena census of
``bench.tools.arena_census`` run inside the server (first call: the baseline; later calls: the
sparse arenas and their new blocks). Started as ``python -c`` like the soak server."""

from __future__ import annotations

from typing import Any

CENSUS_METHOD = "evalfix/bench/census"


def serve() -> None:
    from bench import soak_server
    from bench.tools.arena_census import report
    from evalfix_ls.lsp import server as server_module

    create = server_module.create_server

    def create_server() -> Any:
        server = create()

        @server.feature(CENSUS_METHOD)
        def census(ls: Any, params: Any) -> list[str]:
            return report()

        return server

    server_module.create_server = create_server
    soak_server.serve()
