"""Interfaces over the Python API: the MCP server and the web page, sharing one toolbox, and the commands."""
