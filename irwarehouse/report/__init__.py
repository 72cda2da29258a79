"""Reports assembled from the layers below: the data of `irw report` (campaign.py: the sections
of a campaign's report page, with the online sections of online.py and the text scores of
textscores.py, as report/sections.py data; figures drawn by plots.py; the SQL shown beside each
number, query.py) and `irw meta report` (meta.py, Markdown + JSON of a meta-evaluation). The
pages are the workspace's (irwarehouse/serve renders and writes them): no HTML here. Nothing
below this package imports it."""
