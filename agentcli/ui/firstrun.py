"""The first start in a terminal with nothing configured: offer a model server already running on this machine,
or ask which hosted provider to use and take its key (never echoed). The choice is saved in agentcli's own
config file (0600, `[providers.NAME]`), so the next start needs nothing; then the REPL starts as usual.

`-p` and a REPL without a terminal keep the exit-2 explanation (agentcli.assembly.firstrun)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from agentcli import paths
from agentcli.assembly.firstrun import LocalServer, find_local, first_run_message
from agentcli.errors import ConfigError

if TYPE_CHECKING:
    from agentcli.settings.config import Settings

HOSTED = (("Anthropic", "anthropic", "ANTHROPIC_API_KEY"), ("OpenAI", "openai", "OPENAI_API_KEY"),
          ("Google Gemini", "google", "GEMINI_API_KEY"))


def set_up(reload: Callable[[], Settings], ask: Callable[[str], str] = input,
           ask_secret: Callable[[str], str] | None = None) -> Settings:
    """Ask, save, and return the settings as they now load; a ConfigError (exit 2, with the usual explanation)
    when the person chooses nothing."""
    found = asyncio.run(find_local())
    out = sys.stdout
    out.write("No model provider is configured yet.\n")
    if found:
        chosen = _pick_local(found, ask)
        if chosen is not None:
            _save(chosen.provider, {"base_url": chosen.base_url})
            out.write(f"Saved in {paths.user_config_file()}: {chosen.label} at {chosen.base_url}.\n")
            return reload()
    provider = _pick_hosted(ask)
    if provider is None:
        raise ConfigError(first_run_message([]), code="no_provider")
    label, name, var = provider
    secret = (ask_secret or _getpass)(f"{label} API key ({var}; not shown): ").strip()
    if not secret:
        raise ConfigError(first_run_message([]), code="no_provider")
    _save(name, {"api_key": secret})
    out.write(f"Saved in {paths.user_config_file()} (readable only by you).\n")
    return reload()


def _pick_local(found: list[LocalServer], ask: Callable[[str], str]) -> LocalServer | None:
    out = sys.stdout
    out.write("Found a model server on this machine:\n" if len(found) == 1
              else "Found model servers on this machine:\n")
    for i, server in enumerate(found, 1):
        model = f", serving {server.model}" if server.model else ""
        out.write(f"  {i}. {server.label} at {server.base_url}{model}\n")
    if len(found) == 1:
        answer = ask("Use it? [Y/n] ").strip().lower()
        return found[0] if answer in ("", "y", "yes") else None
    answer = ask(f"Use which? [1-{len(found)}, Enter: 1, n: none] ").strip().lower()
    if answer in ("n", "no"):
        return None
    index = int(answer) if answer.isdigit() else 1
    return found[index - 1] if 1 <= index <= len(found) else None


def _pick_hosted(ask: Callable[[str], str]) -> tuple[str, str, str] | None:
    out = sys.stdout
    out.write("Which provider do you want to use?\n")
    for i, (label, _, var) in enumerate(HOSTED, 1):
        out.write(f"  {i}. {label}  (an API key, {var})\n")
    answer = ask(f"Choose 1-{len(HOSTED)} (Enter to quit): ").strip()
    if not answer.isdigit() or not 1 <= int(answer) <= len(HOSTED):
        return None
    return HOSTED[int(answer) - 1]


def _getpass(prompt: str) -> str:
    import getpass

    return getpass.getpass(prompt)


def _save(provider: str, values: dict[str, str]) -> None:
    """One `[providers.NAME]` table in agentcli's own config (written 0600: it may hold a key)."""
    from agentcli.settings.writer import update_table

    update_table(paths.user_config_file(), "providers", {provider: values})
