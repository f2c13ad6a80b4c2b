#pragma once
// The page around the charts, shared by the report, the comparison and the sweep page: the head
// with its inline CSS (no script, no web font, nothing fetched), the footer, a chart's figure with
// its "download SVG" link, and file names made from titles.
#include <string>

namespace viz::page {

// <!DOCTYPE html> ... <main>: the head with the page's CSS, `main` at most `max_width_px` wide.
std::string open(const std::string& title, int max_width_px);
// The footer and the closing tags.
std::string close();
// A chart in its <figure>, with a link saving it as a stand-alone FILE_STEM.svg (a data: URI).
std::string figure(const std::string& svg_markup, const std::string& file_stem);
// "p4d: 4 pods x 1 GPU" -> "p4d-4-pods-x-1-gpu": a file name from a title.
std::string slug(const std::string& s);

}  // namespace viz::page
