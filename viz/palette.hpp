#pragma once
// Colours: the Okabe-Ito palette (Okabe & Ito 2008, "Color Universal Design"), distinguishable
// under the common colour-vision deficiencies, and the mapping from things drawn to colours.
#include <string>
#include <string_view>

namespace viz {

namespace okabe_ito {
inline constexpr const char* kBlack = "#000000";
inline constexpr const char* kOrange = "#E69F00";
inline constexpr const char* kSkyBlue = "#56B4E9";
inline constexpr const char* kGreen = "#009E73";  // bluish green
inline constexpr const char* kYellow = "#F0E442";
inline constexpr const char* kBlue = "#0072B2";
inline constexpr const char* kVermillion = "#D55E00";
inline constexpr const char* kPurple = "#CC79A7";  // reddish purple
inline constexpr const char* kGrey = "#999999";    // not Okabe-Ito: "other / unknown"
}  // namespace okabe_ito

// The transports a picture distinguishes: P2P over NVLink or PCIe, SHM, NET over EFA,
// InfiniBand or TCP sockets.
enum class TransportClass { NVLink, PCIe, SHM, EFA, IB, Socket, Unknown };

// From NCCL's log label ("P2P/CUMEM/read", "NET/Libfabric/0/GDRDMA") and, when known, the model's
// link class name ("NVLink", "PCIe", ...), which wins: the label cannot tell NVLink from PCIe P2P.
TransportClass classify_transport(std::string_view label, std::string_view link_class);
// Also used for links: a LinkResult kind such as "nvlink", "pcie", "efa", "host_mem".
TransportClass classify_link_kind(std::string_view kind);
const char* transport_class_name(TransportClass c);  // "P2P NVLink", "NET EFA", ...
const char* transport_color(TransportClass c);
const char* link_class_label(TransportClass c);  // for physical links: "NVLink", "PCIe", "EFA", ...
bool transport_is_net(TransportClass c);

// Colours for series (layouts, measured files, sweep series) when several share one axis.
inline constexpr const char* kSeriesColors[] = {okabe_ito::kBlue,       okabe_ito::kOrange, okabe_ito::kGreen,
                                                okabe_ito::kVermillion, okabe_ito::kPurple, okabe_ito::kSkyBlue,
                                                okabe_ito::kBlack,      okabe_ito::kYellow};

// Rank-bar components and timeline streams.
inline constexpr const char* kComputeColor = okabe_ito::kSkyBlue;
inline constexpr const char* kExposedCommColor = okabe_ito::kVermillion;
inline constexpr const char* kBarrierColor = okabe_ito::kYellow;
inline constexpr const char* kOffloadColor = okabe_ito::kPurple;     // host work (CPU-Adam, PCIe copies)
inline constexpr const char* kInterferenceColor = okabe_ito::kBlue;  // compute lost to overlapping comm
inline constexpr const char* kBubbleColor = okabe_ito::kGreen;       // pipeline bubble
inline constexpr const char* kOtherColor = okabe_ito::kGrey;         // idle for another reason

// Collectives by op, stable across charts (timeline, bus bandwidth).
const char* op_color(std::string_view op);

}  // namespace viz
