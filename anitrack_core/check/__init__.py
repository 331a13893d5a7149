"""Checking projects against their upstreams."""
