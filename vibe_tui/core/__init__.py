"""The engine: session, events, agent loop, model adapter. Knows nothing of its views."""
