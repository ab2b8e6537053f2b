"""LLM and embedding backends behind typed tasks, and the response cache that makes reruns free."""
