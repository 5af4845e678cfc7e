"""Compiled programs as versioned artifacts, and loading a ready program from Python."""
