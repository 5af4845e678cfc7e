"""Build the embedded LiITA store from real open data (`nl2sparql kb build`)."""
