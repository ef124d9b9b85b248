"""What pages and the command line both call: the corpus service, background jobs (ingest,
research, compare, evaluate), the run lifecycle, run records and their index, plan drafts,
comparison, reports, cited passages and rendered pages."""
