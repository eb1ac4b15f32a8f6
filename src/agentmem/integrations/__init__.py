"""Integrations with other tools' SDKs. Each submodule imports its SDK only when its class is
first used: ``import agentmem`` never pays for them."""
