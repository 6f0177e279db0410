"""Serving the page: the HTTP server `senet-pi run` starts, its operator PIN, and the guard that
keeps idle or half-open connections from taking it down.

A front end: it may import the service and the web package (the Flask app it serves); nothing below
the front ends imports it.
"""
