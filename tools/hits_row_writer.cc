// Layout of this file: the static tables (referring hosts, ad engines, ...), the constructor that
// turns them into pickers, the builders of the four rich strings (URL, Referer, Title, Params),
// and WriteRow, which draws the remaining columns and writes all 105 fields in table order.
#include "tools/hits_row_writer.h"

#include <iterator>

#include "core/hash.h"
#include "tools/hits_text.h"
#include "tools/split_mix_rng.h"

namespace granite::tools {

namespace {

struct NamedSource {
  std::string_view host;
  double percent;
  int search_engine;
  bool long_paths;
};

// Referring hosts with their share of all rows. The first six are the largest keys of the
// benchmark's per-referer-domain query; the first one exceeds 10% so that its HAVING
// COUNT(*) > 100000 selects rows from 1M rows on. Twenty generated hosts of 1.1-1.5% follow, so
// that 25+ keys pass the HAVING from 10M rows on.
constexpr NamedSource kNamedSources[] = {
    {"go.mail.ru", 12.3, 2, false}, {"google.ru", 8.8, 3, false},  {"bonprix.ru", 4.0, 0, false},
    {"e96.ru", 3.5, 0, true},       {"mysw.info", 3.0, 0, false},  {"svpressa.ru", 2.0, 0, true},
    {"yandex.ru", 1.6, 1, false},   {"nova.rambler.ru", 1.4, 4, false},
};
constexpr int kGeneratedSources = 20;
constexpr double kEmptyPercent = 17, kInternalPercent = 12, kTailPercent = 6,
                 kMalformedPercent = 1.5;

// Non-zero AdvEngineID values and their rows in the real table (0.63% of rows in total).
constexpr std::pair<int16_t, double> kAdvEngines[] = {
    {2, 404602}, {27, 113167}, {13, 45631}, {45, 38960}, {44, 9730}, {3, 6896},
    {62, 5266},  {52, 3554},   {50, 938},   {28, 836},   {53, 350},  {25, 343},
    {61, 158},   {21, 38},     {42, 20},    {16, 7},     {7, 3},     {22, 1}};
constexpr double kAdvRate = 630500.0 / 99997497.0;

constexpr std::pair<std::string_view, double> kCharsets[] = {
    {"windows-1251", 40}, {"utf-8", 35}, {"windows", 8}, {"windows-1251;charset", 5},
    {"", 10},             {"koi8-r", 2}};
constexpr std::pair<int16_t, double> kOtherTrafic[] = {{0, 50}, {5, 18}, {4, 10}, {6, 8},
                                                       {7, 5},  {8, 4},  {9, 3},  {10, 2}};
constexpr std::string_view kHitColors[] = {"5", "5", "5", "5", "5", "5", "5", "5", "5", "6",
                                           "6", "6", "6", "6", "E", "E", "E", "F", "F", "D"};
constexpr std::string_view kSocialNetworks[] = {"vkontakte", "facebook", "odnoklassniki",
                                                "twitter", "moimir"};
constexpr std::string_view kSocialActions[] = {"like", "share", "comment"};
constexpr std::string_view kUtmSources[] = {"yandex", "vk", "begun", "mail", "direct"};
constexpr std::string_view kUtmMediums[] = {"cpc", "banner", "email", "social"};
constexpr std::string_view kCurrencies[] = {"NH", "NH", "NH", "NH", "NH", "NH", "NH",  "NH",
                                            "NH", "NH", "NH", "NH", "NH", "NH", "NH",  "NH",
                                            "NH", "",   "",   "RUB"};
// Characters that exercise the TabSeparated and CSV escaping of the loaders.
constexpr std::string_view kAwkward[] = {"\t", "\n", "\\", "\"", "'", "\\N", "\r\n", ","};

// Per-row chances of the google literals (higher on rows with a search phrase).
constexpr double kGoogleUrlRate = 0.0002, kGoogleUrlRateSearch = 0.001;
constexpr double kGoogleTitleRate = 0.001, kGoogleTitleRateSearch = 0.005;

template <typename Pairs>
std::vector<double> WeightsOf(const Pairs& pairs) {
  std::vector<double> w;
  for (const auto& p : pairs) w.push_back(p.second);
  return w;
}

int32_t RandomInt32(SplitMixRng& rng) { return static_cast<int32_t>(rng.Next() >> 32); }

}  // namespace

HitsRowWriter::HitsRowWriter(const HitsLayout* layout)
    : layout_(layout), users_(layout->seed()) {
  std::vector<double> weights;
  auto add = [&](RefererKind kind, std::string host, int se, bool long_paths, double percent) {
    sources_.push_back({kind, std::move(host), se, long_paths});
    weights.push_back(percent);
  };
  for (const NamedSource& s : kNamedSources) {
    add(RefererKind::kHost, std::string(s.host), s.search_engine, s.long_paths, s.percent);
  }
  for (int j = 0; j < kGeneratedSources; ++j) {
    std::string host = j % 2 == 1 ? "www." : "";
    HitsText::AppendHost(5000 + j, &host);
    add(RefererKind::kHost, host, 0, j % 7 == 3, 1.5 - 0.02 * j);
  }
  add(RefererKind::kEmpty, "", 0, false, kEmptyPercent);
  add(RefererKind::kInternal, "", 0, false, kInternalPercent);
  add(RefererKind::kTailHost, "", 0, false, kTailPercent);
  add(RefererKind::kMalformed, "", 0, false, kMalformedPercent);
  source_picker_ = WeightedPicker(weights);

  std::vector<double> zipf;
  for (int r = 0; r < 10000; ++r) zipf.push_back(1.0 / (r + 1));
  head_phrase_picker_ = WeightedPicker(zipf);
  adv_picker_ = WeightedPicker(WeightsOf(kAdvEngines));
  charset_picker_ = WeightedPicker(WeightsOf(kCharsets));
  other_trafic_picker_ = WeightedPicker(WeightsOf(kOtherTrafic));
}

void HitsRowWriter::BeginCounter(const CounterPlan& counter) {
  counter_ = &counter;
  host_ = "http://";
  if (Mix64(counter.id, 0x3) % 3 == 0) host_ += "www.";
  HitsText::AppendHost(Mix64(counter.id, 0x40c), &host_);
  special_url_.clear();
  special_referer_.clear();
  if (counter.id == kSpecialCounterId) {
    special_url_ = host_;
    HitsText::AppendPath(Mix64(counter.id, 0), counter.long_urls, &special_url_);
    special_referer_ = host_ + "/";
  }
}

void HitsRowWriter::MakeUrl(uint64_t page, bool has_phrase, SplitMixRng& rng) {
  url_ = host_;
  HitsText::AppendPath(Mix64(counter_->id, page), counter_->long_urls, &url_);
  if (rng.Chance(has_phrase ? kGoogleUrlRateSearch : kGoogleUrlRate)) {
    switch (rng.Below(3)) {
      case 0:  // a tracking parameter: matches '%google%' but not '%.google.%'
        url_ += url_.find('?') == std::string::npos ? "?" : "&";
        url_ += "utm_source=googleTBR&ad=" + std::to_string(rng.Below(100000));
        break;
      case 1:  // a Google redirect: matches both
        scratch_ = url_;
        url_ = "http://www.google.ru/url?sa=t&rct=j&q=&esrc=s&url=";
        HitsText::AppendPercentEncoded(scratch_, &url_);
        break;
      default:  // a look-alike host
        url_ = "http://";
        HitsText::AppendToken(rng.Next(), &url_);
        url_ += ".google-photo.com/";
        HitsText::AppendToken(rng.Next(), &url_);
    }
  } else if (rng.Chance(0.00003)) {
    url_.clear();
  }
}

HitsRowWriter::RefererKind HitsRowWriter::MakeReferer(const RowKey& key, SplitMixRng& rng,
                                                      int* search_engine) {
  *search_engine = 0;
  referer_.clear();
  if (!special_referer_.empty() && rng.Chance(0.15)) {
    referer_ = special_referer_;
    return RefererKind::kSpecial;
  }
  const RefererSource& source = sources_[source_picker_.Pick(rng)];
  RefererKind kind = source.kind;
  if (key.robot >= 0 && (kind == RefererKind::kHost || kind == RefererKind::kTailHost)) {
    kind = RefererKind::kEmpty;  // robots do not come from search engines
  }
  switch (kind) {
    case RefererKind::kEmpty:
    case RefererKind::kSpecial: break;
    case RefererKind::kHost:
      *search_engine = source.search_engine;
      referer_ = "http://" + source.host;
      if (source.search_engine != 0) {
        referer_ += "/search?";  // the phrase is appended by WriteRow once it is known
      } else {
        HitsText::AppendPath(rng.Next(), source.long_paths, &referer_);
      }
      break;
    case RefererKind::kInternal: {
      referer_ = host_;
      uint64_t page = rng.Below(counter_->pages);
      HitsText::AppendPath(Mix64(counter_->id, page), counter_->long_urls, &referer_);
      if (referer_ == special_referer_) referer_ += "?";  // keep the special string unique
      break;
    }
    case RefererKind::kTailHost: {
      referer_ = "http://";
      double u = rng.Unit();
      HitsText::AppendHost(static_cast<uint64_t>(u * u * layout_->referer_host_pool()), &referer_);
      HitsText::AppendPath(rng.Next(), false, &referer_);
      break;
    }
    case RefererKind::kMalformed:
      switch (rng.Below(4)) {
        case 0:
          referer_ = "http://";
          HitsText::AppendHost(rng.Below(1000), &referer_);
          break;
        case 1: referer_ = "state=" + std::to_string(rng.Below(100000000)); break;
        case 2: HitsText::AppendToken(rng.Next(), &referer_); break;
        default:
          HitsText::AppendToken(rng.Next(), &referer_);
          referer_ += "-total=меньше " + std::to_string(rng.Below(100));
      }
      break;
  }
  return kind;
}

void HitsRowWriter::MakeTitle(uint64_t page, bool has_phrase, SplitMixRng& rng) {
  title_.clear();
  if (rng.Chance(has_phrase ? kGoogleTitleRateSearch : kGoogleTitleRate)) {
    static constexpr std::string_view kGoogleTitles[] = {"Google", "Google Карты",
                                                         "Google Переводчик", "Google Chrome"};
    title_ = kGoogleTitles[rng.Below(4)];
    title_ += " - ";
    HitsText::AppendWords(rng.Next(), 1 + static_cast<int>(rng.Below(4)), 0.2, &title_);
    return;
  }
  if (rng.Chance(0.02)) return;
  HitsText::AppendTitle(Mix64(counter_->id, page), Mix64(counter_->id, 0x5e), &title_);
  if (rng.Chance(0.0005)) {
    size_t at = title_.size() / 2;
    while (at > 0 && (static_cast<unsigned char>(title_[at]) & 0xC0) == 0x80) --at;  // UTF-8 start
    title_.insert(at, kAwkward[rng.Below(std::size(kAwkward))]);
  }
}

void HitsRowWriter::MakeParams(SplitMixRng& rng) {
  params_.clear();
  if (!rng.Chance(0.015)) return;
  int pairs = 1 + static_cast<int>(rng.Below(3));
  for (int i = 0; i < pairs; ++i) {
    if (i > 0) params_ += ",";
    params_ += "{\"";
    HitsText::AppendToken(rng.Next(), &params_);
    params_ += "\":\"";
    HitsText::AppendWords(rng.Next(), 1, 0.5, &params_);
    if (rng.Chance(0.2)) params_ += kAwkward[rng.Below(std::size(kAwkward))];
    params_ += "\"}";
  }
}

int16_t HitsRowWriter::TraficSource(RefererKind kind, int search_engine, int adv_engine,
                                    SplitMixRng& rng) {
  uint64_t r = rng.Below(100);
  if (kind == RefererKind::kSpecial) return r < 65 ? -1 : r < 90 ? 6 : 0;
  if (adv_engine != 0) return 3;
  if (search_engine != 0) return 2;
  if (kind == RefererKind::kEmpty) return r < 60 ? 1 : r < 90 ? 0 : -1;
  if (kind == RefererKind::kInternal) return r < 70 ? -1 : r < 90 ? 0 : 6;
  return kOtherTrafic[other_trafic_picker_.Pick(rng)].first;
}

void HitsRowWriter::WriteRow(const RowKey& key, FieldWriter* out) {
  SplitMixRng rng(key.row_seed);
  const CounterPlan& counter = *counter_;
  if (!cache_valid_ || cached_user_ != key.user_id) {
    users_.Traits(key.user_id, key.user_index, &traits_);
    if (key.robot >= 0) traits_.client_ip = layout_->robots()[key.robot].client_ip;
    cached_user_ = key.user_id;
    cache_valid_ = true;
  }
  const UserTraits& t = traits_;

  // Page: the counter's top page, a popular page, or one of the long tail.
  uint64_t page;
  if (rng.Chance(counter.top_page_share)) {
    page = 0;
  } else if (rng.Chance(0.45)) {
    double u = rng.Unit();
    page = 1 + static_cast<uint64_t>(50 * u * u * u);
  } else {
    double u = rng.Unit();
    page = 51 + static_cast<uint64_t>(static_cast<double>(counter.pages - 51) * u * u);
  }

  int search_engine = 0;
  RefererKind referer_kind = MakeReferer(key, rng, &search_engine);
  phrase_.clear();
  if (search_engine != 0 && rng.Chance(0.5)) {
    if (rng.Chance(0.08)) {
      HitsText::AppendPhrase(head_phrase_picker_.Pick(rng), &phrase_);
    } else {
      double u = rng.Unit();
      HitsText::AppendPhrase(static_cast<uint64_t>(u * u * layout_->phrase_pool()), &phrase_);
    }
  }
  if (search_engine != 0) {
    referer_ += search_engine == 2 ? "q=" : "text=";
    HitsText::AppendPercentEncoded(phrase_, &referer_);
    referer_ += "&lr=" + std::to_string(rng.Below(300)) + "&clid=" + std::to_string(rng.Below(3000000));
  }
  bool has_phrase = !phrase_.empty();
  int16_t adv = rng.Chance(kAdvRate) ? kAdvEngines[adv_picker_.Pick(rng)].first : 0;
  int16_t trafic = TraficSource(referer_kind, search_engine, adv, rng);
  MakeUrl(page, has_phrase, rng);
  MakeTitle(page, has_phrase, rng);
  MakeParams(rng);

  int64_t url_hash = url_ == special_url_ && !special_url_.empty()
                         ? kSpecialUrlHash
                         : static_cast<int64_t>(core::HashBytes(url_));
  int64_t referer_hash = referer_kind == RefererKind::kSpecial
                             ? kSpecialRefererHash
                             : static_cast<int64_t>(core::HashBytes(referer_));
  int32_t client_ip = t.client_ip;
  uint64_t nat = rng.Below(100000);
  if (key.robot < 0 && nat < 47) client_ip = -39921974;  // the busiest IP: a shared NAT
  if (key.robot < 0 && nat >= 47 && nat < 67) client_ip = 1830470290;
  bool robot = key.robot >= 0;
  int64_t event_time = key.event_time;
  int64_t day = kFirstDay + key.day;

  // Window size: inside the screen, with a continuous spread (many distinct pairs).
  int16_t window_width = 0, window_height = 0;
  if (!rng.Chance(0.03)) {
    if (t.resolution_width <= 0) {
      window_width = static_cast<int16_t>(rng.Between(320, 1919));
      window_height = static_cast<int16_t>(rng.Between(240, 1139));
    } else {
      window_width = static_cast<int16_t>(std::max<int64_t>(100, t.resolution_width - static_cast<int64_t>(rng.Below(420))));
      window_height = static_cast<int16_t>(std::max<int64_t>(100, t.resolution_height - 80 - static_cast<int64_t>(rng.Below(420))));
    }
  }
  bool timings = rng.Chance(0.4);
  int32_t response_start = timings ? static_cast<int32_t>(rng.Below(1500)) : 0;
  uint64_t social = rng.Below(1000);
  bool has_social = social < 15;
  bool openstat = rng.Chance(0.004);
  bool utm = rng.Chance(0.03);
  std::string_view currency = kCurrencies[rng.Below(std::size(kCurrencies))];

  out->Int(key.watch_id);
  out->Int(t.java_enable);
  out->String(title_);
  out->Int(rng.Chance(0.995) ? 1 : 0);  // GoodEvent
  out->DateTime(event_time);
  out->Date(day);
  out->Int(counter.id);
  out->Int(client_ip);
  out->Int(t.region);
  out->Int(key.user_id);
  out->Int(counter.counter_class);
  out->Int(t.os);
  out->Int(t.user_agent);
  out->String(url_);
  out->String(referer_);
  out->Int(rng.Chance(robot ? 0.1 : 0.03) ? 1 : 0);  // IsRefresh
  out->Int(referer_.empty() ? 0 : static_cast<int64_t>(1 + core::HashBytes(referer_.substr(0, 12)) % 16));
  out->Int(referer_.empty() || rng.Chance(0.5) ? 0 : t.region);  // RefererRegionID
  out->Int(counter.url_category);
  out->Int(rng.Chance(0.7) ? t.region : 0);  // URLRegionID
  out->Int(t.resolution_width);
  out->Int(t.resolution_height);
  out->Int(t.resolution_depth);
  out->Int(t.flash_major);
  out->Int(t.flash_minor);
  out->String(t.flash_minor2);
  out->Int(t.net_major);
  out->Int(t.net_minor);
  out->Int(t.user_agent_major);
  out->String(t.user_agent_minor);
  out->Int(t.cookie_enable);
  out->Int(t.javascript_enable);
  out->Int(t.is_mobile);
  out->Int(t.mobile_phone);
  out->String(t.mobile_phone_model);
  out->String(params_);
  out->Int(t.ip_network);
  out->Int(trafic);
  out->Int(search_engine);
  out->String(phrase_);
  out->Int(adv);
  out->Int(rng.Chance(0.005) ? 1 : 0);  // IsArtifical
  out->Int(window_width);
  out->Int(window_height);
  out->Int(t.client_time_zone);
  out->DateTime(event_time + (t.client_time_zone - 240) * 60 + rng.Between(-90, 90));
  out->Int(t.silverlight1);
  out->Int(t.silverlight2);
  out->Int(t.silverlight3);
  out->Int(t.silverlight4);
  out->String(kCharsets[charset_picker_.Pick(rng)].first);
  out->Int(counter.code_version);
  out->Int(rng.Chance(counter.is_link_rate) ? 1 : 0);  // IsLink
  out->Int(rng.Chance(0.005) ? 1 : 0);                 // IsDownload
  out->Int(rng.Chance(0.35) ? 1 : 0);                  // IsNotBounce
  out->Int(t.funiq_id);
  scratch_.clear();
  if (rng.Chance(0.03) && !url_.empty()) scratch_ = url_ + "#" + std::to_string(rng.Below(100));
  out->String(scratch_);  // OriginalURL
  out->Int(RandomInt32(rng));  // HID
  out->Int(rng.Chance(0.001) ? 1 : 0);  // IsOldCounter
  out->Int(rng.Chance(0.02) ? 1 : 0);   // IsEvent
  out->Int(rng.Chance(0.01) ? 1 : 0);   // IsParameter
  out->Int(rng.Chance(robot ? 0.5 : 0.1) ? 1 : 0);  // DontCountHits
  out->Int(rng.Chance(0.05) ? 1 : 0);   // WithHash
  out->String(kHitColors[rng.Below(std::size(kHitColors))]);
  out->DateTime(event_time + kMoscowOffsetSeconds);  // LocalEventTime
  out->Int(t.age);
  out->Int(t.sex);
  out->Int(t.income);
  out->Int(t.interests);
  out->Int(robot ? 4 : rng.Chance(0.02) ? static_cast<int64_t>(1 + rng.Below(3)) : 0);  // Robotness
  out->Int(rng.Chance(0.9) ? client_ip : RandomInt32(rng));  // RemoteIP
  uint64_t w = rng.Below(10);
  out->Int(w < 4 ? -1 : w < 7 ? 0 : RandomInt32(rng));  // WindowName
  uint64_t o = rng.Below(10);
  out->Int(o < 5 ? -1 : o < 7 ? 0 : RandomInt32(rng));  // OpenerName
  out->Int(rng.Chance(0.25) ? -1 : static_cast<int64_t>(rng.Below(15)));  // HistoryLength
  out->String(t.browser_language);
  out->String(t.browser_country);
  out->String(has_social ? kSocialNetworks[social % 5] : "");
  out->String(has_social ? kSocialActions[social % 3] : "");
  out->Int(rng.Chance(0.003) ? 404 : 0);  // HTTPError
  out->Int(timings ? static_cast<int64_t>(rng.Below(50)) : 0);    // SendTiming
  out->Int(timings ? static_cast<int64_t>(rng.Below(100)) : 0);   // DNSTiming
  out->Int(timings ? static_cast<int64_t>(rng.Below(200)) : 0);   // ConnectTiming
  out->Int(response_start);                                        // ResponseStartTiming
  out->Int(timings ? response_start + static_cast<int64_t>(rng.Below(800)) : 0);  // ResponseEnd
  out->Int(timings ? static_cast<int64_t>(rng.Below(3000)) : 0);  // FetchTiming
  out->Int(has_social ? static_cast<int64_t>(1 + social % 5) : 0);  // SocialSourceNetworkID
  scratch_.clear();
  if (has_social) {
    scratch_ = "http://vk.com/";
    HitsText::AppendToken(rng.Next(), &scratch_);
  }
  out->String(scratch_);  // SocialSourcePage
  bool order = rng.Chance(0.005);
  out->Int(order ? static_cast<int64_t>(rng.Below(100000)) * 100 : 0);  // ParamPrice
  out->String(order ? std::to_string(rng.Below(10000000)) : std::string());  // ParamOrderID
  out->String(currency);
  out->Int(currency == "RUB" ? 643 : 0);  // ParamCurrencyID
  out->String(openstat ? "direct.yandex.ru" : "");
  out->String(openstat ? std::to_string(rng.Below(100000)) : std::string());
  out->String(openstat ? std::to_string(rng.Below(1000000)) : std::string());
  out->String(openstat ? std::to_string(rng.Below(1000)) : std::string());
  out->String(utm ? kUtmSources[rng.Below(std::size(kUtmSources))] : "");
  out->String(utm ? kUtmMediums[rng.Below(std::size(kUtmMediums))] : "");
  scratch_.clear();
  if (utm) HitsText::AppendToken(rng.Next(), &scratch_);
  out->String(scratch_);  // UTMCampaign
  scratch_.clear();
  if (utm && rng.Chance(0.5)) HitsText::AppendToken(rng.Next(), &scratch_);
  out->String(scratch_);  // UTMContent
  out->String(utm && has_phrase ? std::string_view(phrase_) : std::string_view());  // UTMTerm
  scratch_.clear();
  if (rng.Chance(0.01)) HitsText::AppendToken(rng.Next(), &scratch_);
  out->String(scratch_);  // FromTag
  out->Int(rng.Chance(0.002) ? 1 : 0);  // HasGCLID
  out->Int(referer_hash);
  out->Int(url_hash);
  out->Int(rng.Chance(0.03) ? static_cast<int64_t>(rng.Below(3000000)) : 0);  // CLID
  out->EndRow();
}

}  // namespace granite::tools
