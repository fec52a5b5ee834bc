#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A flame graph SVG of `qtrace flamegraph` in a real browser: headless
# Chromium driven by chromedriver over the W3C WebDriver protocol (plain
# HTTP on loopback, urllib). What the graph must show is computed here
# from the folded stacks of `qtrace report --folded` of the same trace
# (one line per stack, frames split at ';', the count after the last
# space), not from the SVG:
#   - one frame per distinct stack prefix, its title "NAME (N
#     instructions, P%)" with N the instructions of the lines below it;
#   - a click on the frame ZOOM makes it span the graph's width, scales
#     its callees by all/N, dims its callers and hides the rest; Reset
#     Zoom puts every frame back;
#   - the Search button's prompt, given PATTERN, highlights the frames
#     whose name matches and says which share of the instructions they
#     hold ("Matched: P% (K frames)");
#   - the pointer over a frame shows its title in the details line.
# Prints PASS/FAIL lines like lib.sh; exits 1 on a failure, 77 when the
# browser cannot be started.
# Usage: flame-browser.py SVG FOLDED ZOOM PATTERN WORKDIR
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET

GRAPH_W = 1180.0                # the graph's width, docs/cli.md
failures = 0


def check(what, ok, detail=''):
    global failures
    if ok:
        print('PASS ' + what)
    else:
        failures += 1
        print('FAIL %s%s' % (what, ': ' + detail if detail else ''))


def read_folded(path):
    stacks = []
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        frames, count = line.rsplit(' ', 1)
        stacks.append((frames.split(';'), int(count)))
    return stacks


def prefix_totals(stacks):
    """Instructions below each stack prefix (a tuple of frames)."""
    totals = {}
    for frames, count in stacks:
        for i in range(1, len(frames) + 1):
            key = tuple(frames[:i])
            totals[key] = totals.get(key, 0) + count
    return totals


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


class WebDriver:
    def __init__(self, port):
        self.base = 'http://127.0.0.1:%d' % port
        self.sid = None

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data,
                                     method=method, headers={
                                         'Content-Type': 'application/json'})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.load(r)['value']
        except urllib.error.HTTPError as e:
            raise RuntimeError('%s %s: %s' % (method, path,
                                              e.read().decode()[:300]))

    def s(self, method, path, body=None):
        return self.call(method, '/session/%s%s' % (self.sid, path), body)

    def js(self, script, *args):
        return self.s('POST', '/execute/sync', {'script': script,
                                                'args': list(args)})

    def find(self, css):
        el = self.s('POST', '/element', {'using': 'css selector',
                                         'value': css})
        return list(el.values())[0]

    def click(self, css):
        self.s('POST', '/element/%s/click' % self.find(css), {})


def start(workdir):
    """chromedriver and a session of headless Chromium, or exit 77."""
    port = free_port()
    log = open(os.path.join(workdir, 'chromedriver.log'), 'w')
    proc = subprocess.Popen(['chromedriver', '--port=%d' % port],
                            stdout=log, stderr=subprocess.STDOUT)
    wd = WebDriver(port)
    for _ in range(100):
        try:
            if wd.call('GET', '/status').get('ready'):
                break
        except (OSError, RuntimeError):
            pass
        time.sleep(0.1)
    profile = os.path.join(workdir, 'chromium-profile')
    caps = {'capabilities': {'alwaysMatch': {
        'browserName': 'chrome',
        'goog:chromeOptions': {
            'binary': os.environ.get('CHROMIUM', '/usr/bin/chromium'),
            'args': ['--headless', '--no-sandbox', '--disable-gpu',
                     '--disable-background-networking',
                     '--disable-component-update', '--disable-sync',
                     '--no-first-run', '--user-data-dir=' + profile,
                     '--window-size=1300,900'],
        },
    }}}
    try:
        wd.sid = wd.call('POST', '/session', caps)['sessionId']
    except (OSError, RuntimeError) as e:
        proc.terminate()
        proc.wait()
        print('SKIP flame-browser: Chromium did not start: %s' % e)
        sys.exit(77)
    return proc, wd


FRAMES_JS = '''
return Array.prototype.map.call(document.querySelectorAll("g.f"),
    function (g) {
        var r = g.querySelector("rect");
        return {i: +g.getAttribute("data-i"), d: +g.getAttribute("data-d"),
                title: g.querySelector("title").textContent,
                x: +r.getAttribute("x"), w: +r.getAttribute("width"),
                shown: getComputedStyle(g).display !== "none",
                dim: g.classList.contains("dim"),
                hl: g.classList.contains("hl")};
    });
'''


def frame_paths(frames):
    """Each frame's stack, from the depths in document (depth-first)
    order: a frame's callers are the last frames met at lower depths."""
    path, out = [], {}
    for f in frames:
        name = f['title'][:f['title'].rindex(' (')]
        del path[f['d']:]
        path.append(name)
        out[f['i']] = tuple(path)
    return out


def main():
    svg, folded, zoom, pattern, workdir = sys.argv[1:6]
    ET.parse(svg)                  # well-formed XML, or an exception
    check('the SVG is well-formed XML', True)
    stacks = read_folded(folded)
    total = sum(c for _, c in stacks)
    totals = prefix_totals(stacks)

    proc, wd = start(workdir)
    try:
        wd.s('POST', '/url', {'url': 'file://' + os.path.abspath(svg)})
        wd.js('return document.readyState')
        frames = wd.js(FRAMES_JS)
        paths = frame_paths(frames)
        check('one frame per stack prefix', len(frames) == len(totals),
              '%d frames, %d prefixes' % (len(frames), len(totals)))
        bad = [f['title'] for f in frames if f['title'] !=
               '%s (%d instructions, %.2f%%)' % (
                   paths[f['i']][-1], totals.get(paths[f['i']], -1),
                   100.0 * totals.get(paths[f['i']], 0) / total)]
        check('titles give the folded counts and shares', not bad,
              '; '.join(bad[:3]))
        before = {f['i']: f for f in frames}

        # Zoom into ZOOM (the first frame of that name).
        z = next(f for f in frames if paths[f['i']][-1] == zoom)
        zpath, zn = paths[z['i']], totals[paths[z['i']]]
        wd.click('g.f[data-i="%d"] rect' % z['i'])
        after = {f['i']: f for f in wd.js(FRAMES_JS)}
        check('click: %s spans the graph' % zoom,
              abs(after[z['i']]['w'] - GRAPH_W) < 0.01,
              'width %s' % after[z['i']]['w'])
        wrong = []
        for i, f in after.items():
            p = paths[i]
            if p[:len(zpath)] == zpath:
                want = before[i]['w'] * total / zn
                if want >= 0.1 and (not f['shown'] or
                                    abs(f['w'] - want) > 0.05):
                    wrong.append('%s: %s, not %s' % (p[-1], f['w'], want))
            elif zpath[:len(p)] == p:
                if not (f['shown'] and f['dim'] and
                        abs(f['w'] - GRAPH_W) < 0.01):
                    wrong.append('caller %s not full and dim' % p[-1])
            elif f['shown']:
                wrong.append('%s shown' % p[-1])
        check('click: callees scaled by %d/%d, callers dimmed, the rest '
              'hidden' % (total, zn), not wrong, '; '.join(wrong[:3]))
        check('click: widths changed', any(
            abs(after[i]['w'] - before[i]['w']) > 1 for i in after))
        wd.click('#reset')
        back = {f['i']: f for f in wd.js(FRAMES_JS)}
        check('Reset Zoom: every frame back', all(
            back[i]['shown'] and abs(back[i]['w'] - before[i]['w']) < 0.01
            and not back[i]['dim'] for i in back))

        # Search through the page's own prompt.
        wd.click('#search')
        asked = wd.s('GET', '/alert/text')
        check('Search asks for a pattern', 'regular expression' in asked,
              asked)
        wd.s('POST', '/alert/text', {'text': pattern})
        wd.s('POST', '/alert/accept', {})
        found = wd.js(FRAMES_JS)
        rx = re.compile(pattern)
        want_hl = sorted(p for p in totals if rx.search(p[-1]))
        got_hl = sorted(paths[f['i']] for f in found if f['hl'])
        check('search: the frames matching /%s/ highlighted (%d)' % (
            pattern, len(want_hl)), got_hl == want_hl and want_hl,
            '%d highlighted' % len(got_hl))
        covered = sum(c for frames_, c in stacks
                      if any(rx.search(n) for n in frames_))
        want = 'Matched: %.2f%% (%d frames)' % (100.0 * covered / total,
                                               len(want_hl))
        got = wd.js('return document.getElementById("matched")'
                    '.textContent')
        check('search: matched share', got == want,
              'got "%s", want "%s"' % (got, want))
        wd.click('#search')
        check('Reset Search: no frame highlighted', not any(
            f['hl'] for f in wd.js(FRAMES_JS)))

        # The pointer over a frame: its title in the details line.
        wd.s('POST', '/actions', {'actions': [{
            'type': 'pointer', 'id': 'mouse',
            'parameters': {'pointerType': 'mouse'},
            'actions': [{'type': 'pointerMove', 'duration': 0,
                         'origin': {'element-6066-11e4-a52e-4f735466cecf':
                                    wd.find('g.f[data-i="%d"] rect'
                                            % z['i'])},
                         'x': 0, 'y': 0}]}]})
        got = wd.js('return document.getElementById("details")'
                    '.textContent')
        check('hover: details line', got == z['title'],
              'got "%s"' % got)
    finally:
        try:
            wd.s('DELETE', '')
        except (OSError, RuntimeError):
            pass
        proc.terminate()
        proc.wait()
    print('%d failed' % failures if failures else 'browser checks ok')
    sys.exit(1 if failures else 0)


main()
