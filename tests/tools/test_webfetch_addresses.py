"""WebFetch's address check against every spelling of an internal address a hostile page or model can use: IPv4
inside IPv6 translation forms (mapped, compatible, 6to4, NAT64, Teredo), the IETF block that holds a cloud
metadata address (192.0.0.192), numeric host forms. Public addresses stay reachable."""

from __future__ import annotations

import pytest

from agentcli.sandbox.proxy import _internal
from agentcli.tools.webfetch import FetchRefused, check_url

INTERNAL = ["http://[::ffff:127.0.0.1]/", "http://[::127.0.0.1]/", "http://[2002:7f00:1::]/",
            "http://[2002:a9fe:a9fe::]/", "http://[64:ff9b::a9fe:a9fe]/", "http://[64:ff9b::7f00:1]/",
            "http://[64:ff9b:1::a00:1]/", "http://192.0.0.192/", "http://0/", "http://127.1/", "http://0x7f000001/",
            "http://017700000001/", "http://[::]/", "http://localhost./", "http://[fd00:ec2::254]/",
            "http://100.100.100.200/", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"]


@pytest.mark.parametrize("url", INTERNAL)
def test_internal_addresses_are_refused_in_any_spelling(url: str) -> None:
    with pytest.raises(FetchRefused):
        check_url(url, frozenset())


@pytest.mark.parametrize("url", ["http://8.8.8.8/", "http://[2606:4700::1111]/", "http://[2002:808:808::]/"])
def test_public_addresses_pass(url: str) -> None:
    assert check_url(url, frozenset())[0] == "http"


@pytest.mark.parametrize("address", ["2002:7f00:1::", "64:ff9b::a9fe:a9fe", "::127.0.0.1", "::ffff:169.254.169.254"])
def test_the_sandbox_proxy_sees_the_same_addresses_as_internal(address: str) -> None:
    assert _internal(address)
