"""Why is it slow: rules over the facts Tilescope already has, each finding tied to a source
line, and its launch proposals tried (``service.advise``; types in ``kernels.data.advice``)."""
