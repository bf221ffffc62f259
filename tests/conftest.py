"""Settings shared by every test package."""

from hypothesis import HealthCheck, settings

# Shared CI machines are slow and noisy: hypothesis judges behaviour here, never speed.
settings.register_profile(
    "project", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("project")
