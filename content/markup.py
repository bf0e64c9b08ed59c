"""Staff's Markdown as safe HTML: python-markdown renders it, nh3 (the Rust ``ammonia``
sanitiser) keeps only harmless tags and attributes, so a ``<script>``, an ``onclick`` or a
``javascript:`` link typed into a page never reaches a shopper."""

import markdown
import nh3

#: The tags a content page may hold after sanitising.
TAGS = {"p", "br", "hr", "h2", "h3", "h4", "strong", "em", "b", "i", "code", "pre", "blockquote",
        "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "abbr"}
ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "th": {"scope"}}


def render_markdown(text):
    """``text`` (Markdown, str) as sanitised HTML (str): the ``tables`` and ``sane_lists``
    extensions; then nh3 with ``TAGS`` and ``ATTRIBUTES``, links limited to http, https and
    mailto and given ``rel="noopener noreferrer"``; a script's or style's content removed."""
    html = markdown.markdown(text or "", extensions=["tables", "sane_lists"], output_format="html")
    return nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes={"http", "https", "mailto"},
                     link_rel="noopener noreferrer", clean_content_tags={"script", "style"})
