"""Which thread runs a request, and when it stops: feature handlers run on request workers in two
lanes (``request_runner``: document-wide and point requests, checkpoints that stop a cancelled
or outdated request), point requests go first (``point_first``), and an answer the client asked
again on a newer text is replaced by a short error (``supersession``).
"""
