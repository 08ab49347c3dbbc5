"""The batch front end (``evalfix-ls --check``): which files, analysed how, reported in what format."""
