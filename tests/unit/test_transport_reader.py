"""The stdin reader thread of the LSP transport at the end of a session: input that arrives after
the event loop has closed is dropped without a "coroutine was never awaited" warning (the VS Code
extension's output channel shows the server's stderr as errors)."""

from __future__ import annotations

import asyncio
import gc
import os
import warnings

from evalfix_ls.lsp.jsonrpc.transport import _read_stdin


def test_input_after_the_loop_closed_leaves_no_warning() -> None:
    loop = asyncio.new_event_loop()
    fed: list[bytes] = []
    loop.close()
    read_end, write_end = os.pipe()
    os.write(write_end, b"Content-Length: 2\r\n\r\n{}")
    os.close(write_end)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _read_stdin(read_end, loop, fed.append)  # returns: the loop is gone
            gc.collect()
    finally:
        os.close(read_end)
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert not fed
