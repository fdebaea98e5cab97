"""The interactive front end (prompt_toolkit and rich). prompt_toolkit measures characters with a stand-in for
`wcwidth` until the first one outside printable ASCII (agentcli.ui.cwidth): its import is ~11 % of the start."""

from agentcli.ui.cwidth import install as _install

_install()
