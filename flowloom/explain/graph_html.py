"""The pruned plan of one run as a self-contained HTML page with an SVG drawing.

Ops are boxes coloured by device, laid out left to right in dependency order; data edges
are solid, control edges dashed; each `_Send`/`_Recv` pair is an orange node on the edge
it carries; fetched ops have a thick red border. Hovering a box shows its type, device and
the line that created it. No script, no network: the page opens anywhere.
"""

import html

DEVICE_COLOURS = ["#a6cee3", "#b2df8a", "#cab2d6", "#fdbf6f", "#fb9a99", "#ffff99",
                  "#8dd3c7", "#bebada"]
TRANSFER_COLOUR = "#ff7f0e"
FETCH_BORDER = "#d62728"
BOX_W, BOX_H, GAP_X, GAP_Y = 170, 38, 60, 16
MAX_NODES = 400


def _short(device):
    return device.rsplit("/", 1)[-1].replace("device:", "") if device else "CPU:0"


def render(ex, graph, title="flowloom explain"):
    """HTML text drawing the `RunExplanation` `ex` of a run on `graph`."""
    ops = {op.name: op for op in graph.get_operations() if op.name in ex.ran}
    devices = sorted({_short(d) for _, d, _ in ex.ran.values()})
    colour = {d: DEVICE_COLOURS[i % len(DEVICE_COLOURS)] for i, d in enumerate(devices)}
    fetched = {name for name, (c, e, _) in ex.why.items() if e in ("fetch", "target")}
    transfer_of = {}
    nodes = {}  # key -> (label, sublabel, fill, border, tooltip)
    for name, op in ops.items():
        typ, dev, loc = ex.ran[name]
        border = FETCH_BORDER if name in fetched else "#333333"
        tip = f"{name} ({typ}) on {_short(dev)}" + (f"\n{loc}" if loc else "")
        nodes[name] = (name, typ, colour[_short(dev)], border, tip)
    for k, tr in enumerate(ex.transfers):
        key = f"#transfer{k}"
        what = tr.tensor_name if not tr.control else "control " + tr.tensor_name
        nodes[key] = ("_Send/_Recv", what, TRANSFER_COLOUR, "#333333",
                      f"{what}: {_short(tr.src)} -> {_short(tr.dst)}")
        transfer_of[(tr.tensor_name.lstrip("^"), _short(tr.dst))] = key
    edges = []  # (src key, dst key, dashed)
    for name, op in ops.items():
        dst_dev = _short(ex.ran[name][1])
        for t in op.inputs:
            if t.op.name in ops:
                via = transfer_of.get((t.name, dst_dev))
                if via and _short(ex.ran[t.op.name][1]) != dst_dev:
                    edges.append((t.op.name, via, False))
                    edges.append((via, name, False))
                else:
                    edges.append((t.op.name, name, False))
        for c in op.control_inputs:
            if c.name in ops:
                via = transfer_of.get((c.name, dst_dev))
                if via and _short(ex.ran[c.name][1]) != dst_dev:
                    edges.append((c.name, via, True))
                    edges.append((via, name, True))
                else:
                    edges.append((c.name, name, True))
    for key in list(nodes):
        if key.startswith("#transfer") and not any(e[0] == key for e in edges):
            # A fetch sent back to the client: drawn from its producer.
            tr = ex.transfers[int(key[len("#transfer"):])]
            src = tr.tensor_name.lstrip("^").split(":")[0]
            if src in nodes:
                edges.append((src, key, tr.control))
    truncated = len(nodes) > MAX_NODES
    if truncated:
        keep = set(list(fetched)[:MAX_NODES])
        for s, d, _ in edges:
            if len(keep) >= MAX_NODES:
                break
            if d in keep:
                keep.add(s)
        nodes = {k: v for k, v in nodes.items() if k in keep}
        edges = [e for e in edges if e[0] in nodes and e[1] in nodes]
    pos = _layout(nodes, edges)
    width = max((x for x, _ in pos.values()), default=0) + BOX_W + 2 * GAP_X
    height = max((y for _, y in pos.values()), default=0) + BOX_H + 2 * GAP_Y + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" '
             'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
             '<path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>']
    for s, d, dashed in edges:
        (x1, y1), (x2, y2) = pos[s], pos[d]
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        parts.append(f'<line x1="{x1 + BOX_W}" y1="{y1 + BOX_H / 2}" x2="{x2}" '
                     f'y2="{y2 + BOX_H / 2}" stroke="#555" stroke-width="1.2"{dash} '
                     f'marker-end="url(#arrow)" class="{"control" if dashed else "data"}"/>')
    for key, (label, sub, fill, border, tip) in nodes.items():
        x, y = pos[key]
        width_border = 4 if border == FETCH_BORDER else 1
        cls = "transfer" if key.startswith("#transfer") else "op"
        parts.append(
            f'<g class="{cls}" data-name="{html.escape(label if cls == "op" else sub)}">'
            f'<title>{html.escape(tip)}</title>'
            f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6" fill="{fill}" '
            f'stroke="{border}" stroke-width="{width_border}"/>'
            f'<text x="{x + 6}" y="{y + 15}" font-weight="bold">{html.escape(_clip(label))}'
            f'</text><text x="{x + 6}" y="{y + 30}">{html.escape(_clip(sub))}</text></g>')
    parts.append("</svg>")
    legend = " ".join(
        f'<span style="background:{colour[d]};padding:2px 8px;border:1px solid #333">{d}</span>'
        for d in devices)
    legend += (f' <span style="background:{TRANSFER_COLOUR};padding:2px 8px;border:1px solid '
               f'#333">_Send/_Recv</span> <span style="border:3px solid {FETCH_BORDER};'
               'padding:1px 6px">fetched</span> — data edges solid, control edges dashed')
    note = f"<p>Showing {MAX_NODES} of the ops nearest the fetches.</p>" if truncated else ""
    report = html.escape(str(ex))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title></head><body style='font-family:sans-serif'><h2>{html.escape(title)}</h2>"
            f"<p>{legend}</p>{note}{''.join(parts)}<pre>{report}</pre></body></html>")


def _clip(text, n=26):
    return text if len(text) <= n else text[:n - 1] + "…"


def _layout(nodes, edges):
    """Columns by longest path from a source; rows in order of the median of predecessors."""
    preds = {k: [] for k in nodes}
    for s, d, _ in edges:
        preds[d].append(s)
    layer = {}
    visiting = set()
    for k in nodes:
        if k in layer:
            continue
        visiting.add(k)
        stack = [(k, iter(preds[k]))]
        while stack:
            n, it = stack[-1]
            for p in it:
                if p not in layer and p not in visiting:  # a loop's back edge is skipped
                    visiting.add(p)
                    stack.append((p, iter(preds[p])))
                    break
            else:
                layer[n] = 1 + max((layer[p] for p in preds[n] if p in layer), default=-1)
                stack.pop()
    columns = {}
    for k in nodes:
        columns.setdefault(layer[k], []).append(k)
    pos = {}
    for col in sorted(columns):
        members = columns[col]
        rank = {}
        for k in members:
            ys = sorted(pos[p][1] for p in preds[k] if p in pos)
            rank[k] = ys[len(ys) // 2] if ys else 0
        members.sort(key=lambda k: rank[k])
        for row, k in enumerate(members):
            pos[k] = (GAP_X + col * (BOX_W + GAP_X), GAP_Y + row * (BOX_H + GAP_Y))
    return pos
