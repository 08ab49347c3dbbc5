"""What the analysis may know of the world outside the document: files, repositories, the walk."""
