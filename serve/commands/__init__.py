"""The `nl2sparql` commands, one module per command group; `nl2sparql.cli` registers them on the root group."""
