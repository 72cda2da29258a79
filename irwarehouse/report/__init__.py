"""Reports assembled from the layers below: `irw report` (campaign.py, an HTML page of a
campaign with the online sections of online.py) and `irw meta report` (meta.py, Markdown + JSON
of a meta-evaluation). Their shared parts (queries shown beside their numbers, HTML blocks) are
html.py; figures are irwarehouse.writers.figures. Nothing below this package imports it."""
