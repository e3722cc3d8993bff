"""Reads Prometheus endpoints for the observability tests: fetches /metrics, parses the text
exposition format into samples, and finds the endpoints `granite local --metrics-port` printed.

Functions:
  fetch(url)                 the body of a GET, as text
  parse(text)                Samples: {(name, frozenset(labels.items())): value} plus family types
  endpoints_from_log(lines)  {"coordinator": url, "worker 0": url, ...} from granite local's output
"""

import re
import urllib.request

_SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$')
_LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
_ENDPOINT_RE = re.compile(r"granite local metrics: (coordinator|worker \d+) (http://\S+)")


def fetch(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8")


class Samples:
    """The samples and family types of one scrape."""

    def __init__(self, text):
        self.values = {}
        self.types = {}
        for line in text.splitlines():
            if line.startswith("# TYPE "):
                _, _, name, kind = line.split(" ", 3)
                self.types[name] = kind
                continue
            if not line or line.startswith("#"):
                continue
            m = _SAMPLE_RE.match(line)
            if not m:
                raise ValueError("unparsable sample line: %r" % line)
            labels = dict(_LABEL_RE.findall(m.group(3) or ""))
            self.values[(m.group(1), frozenset(labels.items()))] = float(m.group(4))

    def get(self, name, **labels):
        """Returns the value of the sample with exactly these labels, or None."""
        return self.values.get((name, frozenset(labels.items())))

    def series(self, name):
        """Returns [(labels dict, value)] of every sample of `name`."""
        return [(dict(labels), v) for (n, labels), v in self.values.items() if n == name]

    def total(self, name, **match):
        """Sums the samples of `name` whose labels include `match`."""
        return sum(v for labels, v in self.series(name)
                   if all(labels.get(k) == val for k, val in match.items()))

    def names(self):
        return {n for n, _ in self.values}


def parse(text):
    return Samples(text)


def scrape(url):
    return Samples(fetch(url))


def endpoints_from_log(lines):
    """Returns {"coordinator": url, "worker 0": url, ...} from granite local's output lines."""
    found = {}
    for line in lines:
        m = _ENDPOINT_RE.search(line)
        if m:
            found[m.group(1)] = m.group(2)
    return found
