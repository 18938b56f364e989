#!/bin/bash
# geometry.sh HTML [WIDTH...]: lays the page out in headless Chromium at each
# width (default 800 and 1400 px) and checks every SVG plot as a reader would
# see it (docs/plots.md): every mark lies inside its SVG's viewBox (its box
# after its transforms, as Chromium measured it, not as the file says), no
# two labels overlap, no dot or bar covers a label, and no plot is wider
# than the window. A probe script
# appended to a copy of the page measures the live DOM and writes its
# findings into it; --dump-dom prints the DOM after it ran.
# Prints one line per width ("ok WIDTH: N plots, M marks, T labels") and one
# per problem; exit 0 when there is none, 1 when there is, 2 when Chromium
# gave no answer.
set -u
html=${1:?usage: geometry.sh HTML [WIDTH...]}
shift
widths=("$@")
[ ${#widths[@]} -gt 0 ] || widths=(800 1400)
work=$(mktemp -d /tmp/hb-geometry.XXXXXX)
trap 'rm -rf "$work"' EXIT
probe=$work/probe.html
{
	cat "$html"
	cat <<'EOF'
<script>
(function () {
	var ns = "http://www.w3.org/2000/svg", out = [], marks = 0, labels = 0, plots = 0;
	var skip = { title: 1, desc: 1, g: 1, defs: 1, style: 1, svg: 1 };
	function name(svg, e) {
		var t = svg.querySelector("title");
		return (svg.id || "svg") + " (" + (t ? t.textContent : "") + ") <" + e.tagName +
			(e.textContent ? " \"" + e.textContent.slice(0, 40) + "\"" : "") + ">";
	}
	/* e's box in svg's user units (its viewBox), through every transform */
	function box(svg, e) {
		var b = e.getBBox(), m = svg.getScreenCTM().inverse().multiply(e.getScreenCTM());
		var xs = [], ys = [];
		[[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height],
		 [b.x + b.width, b.y + b.height]].forEach(function (c) {
			var p = svg.createSVGPoint();
			p.x = c[0]; p.y = c[1];
			p = p.matrixTransform(m);
			xs.push(p.x); ys.push(p.y);
		});
		return { x0: Math.min.apply(null, xs), y0: Math.min.apply(null, ys),
			 x1: Math.max.apply(null, xs), y1: Math.max.apply(null, ys) };
	}
	var page = document.documentElement.clientWidth;
	Array.prototype.forEach.call(document.querySelectorAll("svg"), function (svg) {
		if (svg.namespaceURI !== ns || svg.ownerSVGElement)
			return;
		plots++;
		var vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect(), texts = [], dots = [];
		if (!vb || !vb.width)
			out.push("no viewBox: " + (svg.id || "svg"));
		if (r.right > page + 0.5)
			out.push("wider than the window (" + Math.round(r.right) + " > " + page +
				 " px): " + (svg.id || "svg"));
		Array.prototype.forEach.call(svg.querySelectorAll("*"), function (e) {
			if (skip[e.tagName] || e.namespaceURI !== ns || e.closest("title"))
				return;
			marks++;
			var b = box(svg, e), tol = 0.5;
			if (b.x0 < vb.x - tol || b.y0 < vb.y - tol || b.x1 > vb.x + vb.width + tol ||
			    b.y1 > vb.y + vb.height + tol)
				out.push("outside the viewBox " + [vb.x, vb.y, vb.width, vb.height].join(" ") +
					 ": " + name(svg, e) + " at " + [b.x0, b.y0, b.x1, b.y1].map(
						 function (v) { return v.toFixed(1); }).join(" "));
			if (e.tagName === "text") {
				labels++;
				texts.push({ e: e, b: b });
			} else if (e.tagName === "rect" || e.tagName === "circle") {
				dots.push({ e: e, b: b });
			}
		});
		/* a pixel of slack each way: glyph boxes of neighbouring lines touch */
		function overlap(a, c) {
			return Math.min(a.x1, c.x1) - Math.max(a.x0, c.x0) > 1 &&
			       Math.min(a.y1, c.y1) - Math.max(a.y0, c.y0) > 1;
		}
		for (var i = 0; i < texts.length; i++) {
			for (var j = i + 1; j < texts.length; j++)
				if (overlap(texts[i].b, texts[j].b))
					out.push("labels overlap: " + name(svg, texts[i].e) + " and " +
						 name(svg, texts[j].e));
			/* a dot or a bar (a CI) drawn over a label */
			for (var k = 0; k < dots.length; k++)
				if (overlap(texts[i].b, dots[k].b))
					out.push("a mark covers a label: " + name(svg, dots[k].e) + " over " +
						 name(svg, texts[i].e));
		}
	});
	var p = document.createElement("pre");
	p.id = "hb-geometry";
	p.textContent = "plots " + plots + " marks " + marks + " labels " + labels + "\n" +
		out.join("\n");
	document.body.appendChild(p);
})();
</script>
EOF
} >"$probe"
rc=0
for w in "${widths[@]}"; do
	dom=$work/dom-$w.html
	# This check failed once in make check-unit (its output not kept) and
	# passed on the same page in the 13 runs after: a Chromium that gives
	# no answer gets one more try, and what it said is printed.
	for try in 1 2; do
		timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
			--no-first-run --disable-background-networking --disable-component-update \
			--disable-sync --hide-scrollbars --window-size="$w,1000" \
			--user-data-dir="$work/chromium-$try" --dump-dom "file://$probe" \
			>"$dom" 2>"$work/chromium-$try.log"
		chromium_rc=$?
		result=$(python3 -c 'import html, re, sys
m = re.search(r"<pre id=\"hb-geometry\">(.*?)</pre>", open(sys.argv[1]).read(), re.S)
print(html.unescape(m.group(1)) if m else "", end="")' "$dom")
		[ -z "$result" ] || break
		echo "geometry: $html at $w px: Chromium gave no answer (try $try, exit" \
			"$chromium_rc; its last words: $(tail -n 2 "$work/chromium-$try.log" | tr '\n' ' '))" >&2
	done
	[ -n "$result" ] || exit 2
	read -r _ plots _ marks _ labels <<<"$(head -n1 <<<"$result")"
	problems=$(tail -n +2 <<<"$result")
	if [ -n "$problems" ]; then
		sed "s|^|geometry: $html at $w px: |" <<<"$problems"
		rc=1
	else
		echo "ok $w: $plots plots, $marks marks, $labels labels"
	fi
	[ "${plots:-0}" -gt 0 ] || { echo "geometry: $html at $w px: no plots" ; rc=1; }
done
exit $rc
