"""Fast DOCX and PPTX writers for rendered sections: the libraries' own templates, only the body per file.

python-docx spends most of a small document's time re-compressing its template's 800 KB of styles.
Here the template is saved once per process (normalised like every Office file of the project), its
static parts kept compressed, and each document appends only `word/document.xml` and
`docProps/core.xml` to a copy of it (zipfile's append mode keeps the other entries' bytes as they are).
The result opens in python-docx and Word like python-docx's own; styles are the template's Title,
Heading 2 and List Bullet. PPTX likewise: python-pptx's empty deck, plus one slide part per slide and
the four parts that list them (content types, presentation, its relationships, core properties).
A run with Chinese names its East Asian font and language (zh-CN), so an office suite sets it in a CJK font;
the text itself is Unicode in the XML, which every parser reads whatever the fonts.
"""

from __future__ import annotations

import io
import re
import zipfile
from functools import cache
from xml.sax.saxutils import escape

from ..util.cjk import has_cjk
from ..workspace.formats import normalise_zip

_PER_FILE = ("word/document.xml", "docProps/core.xml")
_STYLES = {"title": "Title", "heading": "Heading2", "bullet": "ListBullet", "para": None}
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
EAST_ASIAN_FONT = "WenQuanYi Zen Hei"  # the font `make setup` installs; named, not embedded (a fixed name: same bytes)


def _split(saved: bytes, per_file: tuple[str, ...]) -> tuple[bytes, dict[str, str]]:
    """(a library's saved empty file, normalised, without the `per_file` parts; those parts' text)."""
    src = zipfile.ZipFile(io.BytesIO(normalise_zip(saved)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename not in per_file:
                dst.writestr(info, src.read(info))
    return out.getvalue(), {name: src.read(name).decode("utf-8") for name in per_file}


@cache
def _template() -> tuple[bytes, dict[str, str]]:
    """python-docx's empty document, split (`_split`)."""
    import docx

    buf = io.BytesIO()
    docx.Document().save(buf)
    return _split(buf.getvalue(), _PER_FILE)


def _titled(core: str, title: str) -> str:
    """docProps/core.xml with `title` as its title."""
    return re.sub(r"<dc:title\s*/>|<dc:title>[^<]*</dc:title>",
                  f"<dc:title>{escape(_INVALID_XML.sub('', title))}</dc:title>", core, count=1)


def _paragraph(style: str, text: str) -> str:
    name = _STYLES[style]
    props = f'<w:pPr><w:pStyle w:val="{name}"/></w:pPr>' if name else ""
    run = (f'<w:rPr><w:rFonts w:eastAsia="{EAST_ASIAN_FONT}"/><w:lang w:eastAsia="zh-CN"/></w:rPr>'
           if has_cjk(text) else "")
    return f'<w:p>{props}<w:r>{run}<w:t xml:space="preserve">{escape(_INVALID_XML.sub("", text))}</w:t></w:r></w:p>'


def _entry(name: str) -> zipfile.ZipInfo:
    entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    entry.compress_type, entry.create_system, entry.external_attr = zipfile.ZIP_DEFLATED, 3, 0o644 << 16
    return entry


def docx_bytes(title: str, blocks: list[tuple[str, str]]) -> bytes:
    """A DOCX of (style, text) blocks (styles: title, heading, bullet, para) with `title` as its title."""
    static, parts = _template()
    body = "".join(_paragraph(style, text) for style, text in blocks)
    document = parts[_PER_FILE[0]].replace("<w:body>", "<w:body>" + body, 1)
    core = re.sub(r"<dc:creator>[^<]*</dc:creator>", "<dc:creator>filegram_kit</dc:creator>",
                  _titled(parts[_PER_FILE[1]], title), count=1)
    buf = io.BytesIO(static)
    with zipfile.ZipFile(buf, "a", zipfile.ZIP_DEFLATED) as out:
        out.writestr(_entry(_PER_FILE[0]), document.encode("utf-8"))
        out.writestr(_entry(_PER_FILE[1]), core.encode("utf-8"))
    return buf.getvalue()


# -- PPTX ---------------------------------------------------------------------------------------------------
_DECK_PER_FILE = ("[Content_Types].xml", "ppt/presentation.xml", "ppt/_rels/presentation.xml.rels",
                  "docProps/core.xml")
_NS = ('xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
       'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_SLIDE_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml"
# (layout file, title placeholder, body placeholder, body shape name): python-pptx's layouts 0 and 1
_LAYOUTS = {"title": ("slideLayout1.xml", '<p:ph type="ctrTitle"/>', '<p:ph type="subTitle" idx="1"/>', "Subtitle 2"),
            "heading": ("slideLayout2.xml", '<p:ph type="title"/>', '<p:ph idx="1"/>', "Content Placeholder 2")}


@cache
def _deck_template() -> tuple[bytes, dict[str, str]]:
    """python-pptx's empty deck, split (`_split`)."""
    import pptx

    buf = io.BytesIO()
    pptx.Presentation().save(buf)
    return _split(buf.getvalue(), _DECK_PER_FILE)


def _shape(n: int, name: str, placeholder: str, lines: list[str]) -> str:
    chinese = f'<a:rPr lang="zh-CN"><a:ea typeface="{EAST_ASIAN_FONT}"/></a:rPr>'
    paras = "".join(f"<a:p><a:r>{chinese if has_cjk(line) else ''}<a:t>{escape(_INVALID_XML.sub('', line))}</a:t>"
                    "</a:r></a:p>" for line in lines)
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="{n}" name="{name}"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr>'
            f'<p:nvPr>{placeholder}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>'
            f'{paras or "<a:p/>"}</p:txBody></p:sp>')


def _slide(kind: str, title: str, body: list[str]) -> tuple[str, str]:
    """(slide XML, its relationships) for a title or heading slide."""
    layout, title_ph, body_ph, body_name = _LAYOUTS[kind]
    shapes = _shape(2, "Title 1", title_ph, [title]) + _shape(3, body_name, body_ph, body)
    xml = (f"<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n<p:sld {_NS}><p:cSld><p:spTree>"
           '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
           f"{shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>")
    rels = ("<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n<Relationships xmlns=\"http://schemas."
            f'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{_REL}/slideLayout" '
            f'Target="../slideLayouts/{layout}"/></Relationships>')
    return xml, rels


def _slides(blocks: list[tuple[str, str]]) -> list[tuple[str, str, list[str]]]:
    """(kind, title, body lines) per slide: a title or heading opens one; text before either is dropped,
    as python-pptx's markup encoder does."""
    slides: list[tuple[str, str, list[str]]] = []
    for style, text in blocks:
        if style in ("title", "heading"):
            slides.append((style, text, []))
        elif slides:
            slides[-1][2].append(text)
    return slides


def pptx_bytes(title: str, blocks: list[tuple[str, str]]) -> bytes:
    """A PPTX of (style, text) blocks: a title slide, then one slide per heading with its lines as the body."""
    static, parts = _deck_template()
    slides = _slides(blocks)
    first_rid = 1 + max(int(r) for r in re.findall(r'Id="rId(\d+)"', parts["ppt/_rels/presentation.xml.rels"]))
    ids = "".join(f'<p:sldId id="{256 + i}" r:id="rId{first_rid + i}"/>' for i in range(len(slides)))
    presentation = parts["ppt/presentation.xml"].replace(
        "</p:sldMasterIdLst>", f"</p:sldMasterIdLst><p:sldIdLst>{ids}</p:sldIdLst>" if slides else
        "</p:sldMasterIdLst>", 1)
    rels = parts["ppt/_rels/presentation.xml.rels"].replace("</Relationships>", "".join(
        f'<Relationship Id="rId{first_rid + i}" Type="{_REL}/slide" Target="slides/slide{i + 1}.xml"/>'
        for i in range(len(slides))) + "</Relationships>")
    types = parts["[Content_Types].xml"].replace("</Types>", "".join(
        f'<Override PartName="/ppt/slides/slide{i + 1}.xml" ContentType="{_SLIDE_TYPE}"/>'
        for i in range(len(slides))) + "</Types>")
    core = _titled(parts["docProps/core.xml"], title)
    buf = io.BytesIO(static)
    with zipfile.ZipFile(buf, "a", zipfile.ZIP_DEFLATED) as out:
        for name, text in (("[Content_Types].xml", types), ("ppt/presentation.xml", presentation),
                           ("ppt/_rels/presentation.xml.rels", rels), ("docProps/core.xml", core)):
            out.writestr(_entry(name), text.encode("utf-8"))
        for i, (kind, heading, body) in enumerate(slides, 1):
            xml, slide_rels = _slide(kind, heading, body)
            out.writestr(_entry(f"ppt/slides/slide{i}.xml"), xml.encode("utf-8"))
            out.writestr(_entry(f"ppt/slides/_rels/slide{i}.xml.rels"), slide_rels.encode("utf-8"))
    return buf.getvalue()
