"""The source layer: upstream files at pinned identity (blob-verified), from git partial
clones, mirrors, wheels and object stores (see `layer.SourceLayer`)."""
