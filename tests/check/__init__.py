"""Tests of upstream fetching: the HTTP layer, the address guard and user regexes."""
