"""Plumbing shared by every game: engine base, observation and action tables, rewards, errors, rendering."""
