"""Durable storage for games, challenges, settings and ratings."""
