"""Bytes ↔ messages: the lowest family of the server, which knows no request scheduling, session
state or diagnostics type (it types what it calls back against ``protocol.ProtocolHost`` and
writes whatever is ``encoded.PreEncoded`` as it is).

``framing`` cuts the byte stream into bodies (robust to the headers broken clients write),
``transport`` owns the stdin reader and the stdout writer threads,
``envelope`` checks a body is a JSON-RPC message, ``protocol`` is pygls' protocol with the gaps
that matter for robustness closed, ``encoded`` writes answers to JSON off the loop, ``trace``
follows each request (``EVALFIX_LS_TRACE``), ``log`` forwards log records to the client, and
``pygls_private`` holds every private name of pygls the server relies on.
"""
