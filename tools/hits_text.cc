#include "tools/hits_text.h"

#include <array>

#include "tools/split_mix_rng.h"

namespace granite::tools {
namespace {

// Everyday Russian search vocabulary (UTF-8): 2 bytes per Cyrillic letter.
constexpr std::string_view kCyrillicWords[] = {
    "купить", "цена", "отзывы", "скачать", "бесплатно", "фото", "смотреть", "онлайн",
    "квартира", "продажа", "москва", "погода", "новости", "работа", "авто", "ремонт", "игры",
    "фильмы", "музыка", "сериал", "рецепт", "торт", "платье", "детские", "одежда", "обувь",
    "телефон", "ноутбук", "телевизор", "холодильник", "стиральная", "машина", "карта", "города",
    "как", "сделать", "своими", "руками", "лучшие", "программа", "для", "русский", "язык",
    "словарь", "перевод", "английский", "школа", "университет", "доставка", "такси", "билеты",
    "поезд", "самолет", "гостиница", "отель", "туры", "турция", "египет", "дача", "сад",
    "огород", "семена", "цветы", "букет", "подарок", "свадьба", "день", "рождения",
    "поздравления", "стихи", "песни", "кино", "театр", "афиша", "банк", "кредит", "ипотека",
    "вклад", "курс", "доллар", "евро", "рубль", "дом", "баня", "забор", "окна", "двери",
    "мебель", "кухня", "диван", "шкаф", "кровать", "обои", "плитка", "ламинат", "краска",
    "запчасти", "шины", "диски", "масло", "лада", "приора", "калина", "форд", "фокус",
    "тойота", "мазда", "опель", "рено", "шкода", "ауди", "мерседес", "волга", "газель",
    "мотоцикл", "велосипед", "коляска", "игрушки", "кукла", "книги", "учебник", "гдз",
    "математика", "физика", "химия", "история", "сочинение", "реферат", "диплом", "экзамен",
    "егэ", "тест", "ответы", "вакансии", "резюме", "зарплата", "налог", "пенсия", "закон",
    "суд", "юрист", "врач", "больница", "аптека", "лекарство", "лечение", "симптомы", "грипп",
    "кашель", "давление", "зубы", "салон", "прическа", "маникюр", "косметика", "крем", "духи",
    "диета", "похудеть", "фитнес", "спорт", "футбол", "хоккей", "теннис", "чемпионат", "матч",
    "трансляция", "прямая", "эфир", "канал", "первый", "россия", "юмор", "анекдоты", "приколы",
    "видео", "картинки", "рабочий", "стол", "красивые", "девушки", "знакомства", "вконтакте",
    "одноклассники", "мой", "мир", "почта", "регистрация", "вход", "страница", "сайт",
    "официальный", "форум", "блог", "чат", "скайп", "береж", "за", "на", "в", "с", "и", "по",
    "от", "до", "без", "под", "новый", "старый", "большой", "маленький", "белый", "черный",
    "красный", "зеленый", "синий", "летний", "зимний", "женский", "мужской", "детский",
    "дешево", "недорого", "оптом", "магазин", "интернет", "каталог", "размер", "меньше",
    "больше", "самый", "год", "2013", "2012", "июль", "санкт", "петербург", "екатеринбург",
    "новосибирск", "казань", "самара", "омск", "челябинск", "ростов", "уфа", "пермь",
    "воронеж", "волгоград", "краснодар", "саратов", "тюмень", "барнаул", "иркутск",
};

constexpr std::string_view kLatinWords[] = {
    "online", "free", "download", "video", "photo", "news", "shop", "sale", "best", "top",
    "new", "city", "market", "auto", "game", "music", "film", "movie", "forum", "blog", "map",
    "weather", "travel", "hotel", "tickets", "book", "school", "home", "garden", "sport",
    "club", "style", "fashion", "beauty", "health", "job", "work", "bank", "money", "credit",
    "realty", "catalog", "price", "review", "mobile", "phone", "apple", "samsung", "nokia",
    "sony", "lenovo", "acer", "asus", "windows", "linux", "android", "iphone", "ipad", "mail",
    "search", "info", "help", "support", "page", "index", "main", "view", "show", "item",
    "product", "detail", "list", "category", "tag", "user", "profile", "login", "register",
    "cart", "order", "pay", "dvd", "hd", "mp3", "torrent", "vk", "skype", "minecraft", "dota",
};

// Host syllables: no 'g', so "google" can never be formed by accident.
constexpr std::string_view kSyllables[] = {
    "ka", "ro", "mi", "te", "la", "bu", "vi", "zo", "ne", "pa", "si", "tu", "do", "re",
    "fa", "lo", "mu", "ni", "sa", "ve", "ri", "ko", "de", "ma", "to", "bo", "ze", "pi",
    "ru", "na", "al", "ex", "in", "on", "ar", "el", "us", "is", "ok", "me", "li", "da",
};

constexpr std::string_view kTlds[] = {".ru", ".ru", ".ru", ".ru", ".ru", ".ru", ".com", ".net",
                                      ".ua", ".info", ".org", ".su", ".by", ".kz", ".ru", ".com"};

constexpr std::string_view kSuffixes[] = {"", "", "", ".html", ".php", "/", ".htm", ".aspx"};

constexpr std::string_view kParamNames[] = {"id", "page", "lang", "sort", "from", "q", "cat",
                                            "utm_term", "ref", "sid", "city", "price_from",
                                            "price_to", "view", "tab", "p"};

template <typename T, size_t N>
constexpr size_t Count(const T (&)[N]) {
  return N;
}

std::string_view Pick(SplitMixRng& rng, const std::string_view* words, size_t n) {
  return words[rng.Below(n)];
}

void AppendNumber(uint64_t v, std::string* out) {
  char tmp[24];
  char* end = tmp + sizeof(tmp);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  out->append(p, end - p);
}

}  // namespace

void HitsText::AppendWords(uint64_t key, int words, double latin_share, std::string* out) {
  SplitMixRng rng(Mix64(key, 0x51));
  for (int i = 0; i < words; ++i) {
    if (i > 0) out->push_back(' ');
    if (rng.Chance(latin_share)) {
      out->append(Pick(rng, kLatinWords, Count(kLatinWords)));
    } else {
      out->append(Pick(rng, kCyrillicWords, Count(kCyrillicWords)));
    }
  }
}

void HitsText::AppendPhrase(uint64_t phrase_id, std::string* out) {
  SplitMixRng rng(Mix64(phrase_id, 0x7a));
  static constexpr int kWordCounts[] = {1, 2, 2, 2, 3, 3, 3, 4, 4, 5};
  int words = kWordCounts[rng.Below(10)];
  if (rng.Below(200) == 0) out->push_back(' ');
  AppendWords(rng.Next(), words, 0.12, out);
}

void HitsText::AppendToken(uint64_t key, std::string* out) {
  SplitMixRng rng(Mix64(key, 0x3c));
  int syllables = 1 + static_cast<int>(rng.Below(3));
  for (int i = 0; i < syllables; ++i) out->append(Pick(rng, kSyllables, Count(kSyllables)));
}

void HitsText::AppendHost(uint64_t host_key, std::string* out) {
  SplitMixRng rng(Mix64(host_key, 0x40));
  int syllables = 2 + static_cast<int>(rng.Below(3));
  for (int i = 0; i < syllables; ++i) {
    if (i == 2 && rng.Below(4) == 0) out->push_back('-');
    out->append(Pick(rng, kSyllables, Count(kSyllables)));
  }
  out->append(kTlds[rng.Below(Count(kTlds))]);
}

void HitsText::AppendPercentEncoded(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  size_t at = out->size();
  out->resize(at + 3 * text.size());
  char* p = out->data() + at;
  for (unsigned char c : text) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '~' || c == '-';
    if (plain) {
      *p++ = static_cast<char>(c);
    } else if (c == ' ') {
      *p++ = '+';
    } else {
      *p++ = '%';
      *p++ = kHex[c >> 4];
      *p++ = kHex[c & 15];
    }
  }
  out->resize(p - out->data());
}

void HitsText::AppendPath(uint64_t page_key, bool long_query, std::string* out) {
  SplitMixRng rng(Mix64(page_key, 0x9a));
  int segments = static_cast<int>(rng.Below(5));
  out->push_back('/');
  for (int i = 0; i < segments; ++i) {
    if (i > 0) out->push_back('/');
    switch (rng.Below(6)) {
      case 0:
      case 1: out->append(Pick(rng, kLatinWords, Count(kLatinWords))); break;
      case 2: out->append(Pick(rng, kCyrillicWords, Count(kCyrillicWords))); break;
      case 3:
        AppendPercentEncoded(Pick(rng, kCyrillicWords, Count(kCyrillicWords)), out);
        break;
      case 4: AppendNumber(rng.Below(100000), out); break;
      default:
        out->append(Pick(rng, kLatinWords, Count(kLatinWords)));
        out->push_back('_');
        AppendNumber(rng.Below(1000), out);
    }
  }
  if (segments > 0) out->append(kSuffixes[rng.Below(Count(kSuffixes))]);
  int params = long_query ? 4 + static_cast<int>(rng.Below(8))
                          : (rng.Below(3) == 0 ? 1 + static_cast<int>(rng.Below(3)) : 0);
  for (int i = 0; i < params; ++i) {
    out->push_back(i == 0 ? '?' : '&');
    out->append(Pick(rng, kParamNames, Count(kParamNames)));
    out->push_back('=');
    switch (rng.Below(3)) {
      case 0: AppendNumber(rng.Below(10000000), out); break;
      case 1: AppendToken(rng.Next(), out); break;
      default:
        AppendPercentEncoded(Pick(rng, kCyrillicWords, Count(kCyrillicWords)), out);
        if (long_query) {
          out->append("%2C");
          AppendPercentEncoded(Pick(rng, kCyrillicWords, Count(kCyrillicWords)), out);
        }
    }
  }
}

void HitsText::AppendTitle(uint64_t page_key, uint64_t site_key, std::string* out) {
  SplitMixRng rng(Mix64(page_key, 0x71));
  AppendWords(rng.Next(), 2 + static_cast<int>(rng.Below(7)), 0.1, out);
  out->append(" - ");
  AppendWords(site_key, 1 + static_cast<int>(Mix64(site_key) % 2), 0.4, out);
}

}  // namespace granite::tools
