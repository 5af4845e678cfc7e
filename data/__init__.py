"""Our curated dataset (data/dataset/*.jsonl), its loaders, checks and splits; KB samples live in data/kb."""
