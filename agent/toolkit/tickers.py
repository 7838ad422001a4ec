"""Ticker symbols by the names people use, for parameters that ask for a stock ticker or a crypto
symbol: the widely held cryptocurrencies and the companies most asked about, by their English,
Chinese and Japanese names ("bitcoin", "以太坊", "テスラ", "苹果"). A symbol no table knows is kept as
written ("PLTR"): the tables name the ones a message says in words, not every listed company.
"""

from __future__ import annotations

import re
import unicodedata

#: crypto symbol -> its names
CRYPTO: dict[str, tuple[str, ...]] = {
    "BTC": ("bitcoin", "比特币", "比特幣", "ビットコイン"),
    "ETH": ("ethereum", "ether", "以太坊", "以太币", "イーサリアム", "イーサ"),
    "USDT": ("tether", "泰达币", "テザー"),
    "USDC": ("usd coin", "usdコイン"),
    "BNB": ("binance coin", "币安币", "バイナンスコイン"),
    "SOL": ("solana", "索拉纳", "ソラナ"),
    "XRP": ("ripple", "瑞波币", "リップル"),
    "ADA": ("cardano", "艾达币", "卡尔达诺", "カルダノ"),
    "DOGE": ("dogecoin", "狗狗币", "ドージコイン"),
    "TRX": ("tron", "波场", "トロン"),
    "DOT": ("polkadot", "波卡", "ポルカドット"),
    "MATIC": ("polygon", "マティック", "ポリゴン"),
    "LTC": ("litecoin", "莱特币", "ライトコイン"),
    "SHIB": ("shiba inu", "柴犬币", "シバイヌ"),
    "AVAX": ("avalanche", "雪崩币", "アバランチ"),
    "LINK": ("chainlink", "チェーンリンク"),
    "XLM": ("stellar", "恒星币", "ステラルーメン"),
    "BCH": ("bitcoin cash", "比特币现金", "ビットコインキャッシュ"),
    "ATOM": ("cosmos", "コスモス"),
    "XMR": ("monero", "门罗币", "モネロ"),
    "ETC": ("ethereum classic", "以太经典", "イーサリアムクラシック"),
}

#: stock ticker -> the company's names
STOCKS: dict[str, tuple[str, ...]] = {
    "AAPL": ("apple", "苹果", "蘋果", "アップル"),
    "MSFT": ("microsoft", "微软", "微軟", "マイクロソフト"),
    "GOOGL": ("google", "alphabet", "谷歌", "グーグル", "アルファベット"),
    "AMZN": ("amazon", "亚马逊", "亞馬遜", "アマゾン"),
    "META": ("meta", "facebook", "脸书", "臉書", "メタ", "フェイスブック"),
    "TSLA": ("tesla", "特斯拉", "テスラ"),
    "NVDA": ("nvidia", "英伟达", "輝達", "エヌビディア"),
    "NFLX": ("netflix", "奈飞", "網飛", "ネットフリックス"),
    "AMD": ("advanced micro devices", "超威", "超微"),
    "INTC": ("intel", "英特尔", "英特爾", "インテル"),
    "QCOM": ("qualcomm", "高通", "クアルコム"),
    "AVGO": ("broadcom", "博通", "ブロードコム"),
    "ORCL": ("oracle", "甲骨文", "オラクル"),
    "CRM": ("salesforce", "セールスフォース"),
    "ADBE": ("adobe", "奥多比", "アドビ"),
    "IBM": ("ibm",),
    "CSCO": ("cisco", "思科", "シスコ"),
    "TSM": ("tsmc", "台积电", "台積電", "tsmc"),
    "ASML": ("asml",),
    "BABA": ("alibaba", "阿里巴巴", "アリババ"),
    "BIDU": ("baidu", "百度", "バイドゥ"),
    "JD": ("jd.com", "京东", "京東"),
    "PDD": ("pinduoduo", "拼多多"),
    "NIO": ("nio", "蔚来"),
    "TCEHY": ("tencent", "腾讯", "騰訊", "テンセント"),
    "SONY": ("sony", "索尼", "ソニー"),
    "TM": ("toyota", "丰田", "豐田", "トヨタ"),
    "NTDOY": ("nintendo", "任天堂"),
    "KO": ("coca-cola", "coca cola", "可口可乐", "コカ・コーラ", "コカコーラ"),
    "PEP": ("pepsico", "pepsi", "百事", "ペプシ"),
    "MCD": ("mcdonald's", "mcdonalds", "麦当劳", "マクドナルド"),
    "SBUX": ("starbucks", "星巴克", "スターバックス"),
    "NKE": ("nike", "耐克", "ナイキ"),
    "DIS": ("disney", "迪士尼", "ディズニー"),
    "WMT": ("walmart", "沃尔玛", "ウォルマート"),
    "COST": ("costco", "好市多", "コストコ"),
    "BA": ("boeing", "波音", "ボーイング"),
    "JPM": ("jpmorgan", "jp morgan", "摩根大通", "JPモルガン"),
    "GS": ("goldman sachs", "高盛", "ゴールドマン・サックス"),
    "V": ("visa",),
    "MA": ("mastercard", "万事达", "マスターカード"),
    "PYPL": ("paypal", "贝宝", "ペイパル"),
    "BRK.B": ("berkshire hathaway", "berkshire", "伯克希尔", "バークシャー"),
    "JNJ": ("johnson & johnson", "johnson and johnson", "强生", "ジョンソン・エンド・ジョンソン"),
    "PFE": ("pfizer", "辉瑞", "ファイザー"),
    "XOM": ("exxon", "exxonmobil", "埃克森美孚", "エクソンモービル"),
    "UBER": ("uber", "优步", "ウーバー"),
    "ABNB": ("airbnb", "爱彼迎", "エアビーアンドビー"),
    "SPOT": ("spotify", "スポティファイ"),
    "SHOP": ("shopify", "ショッピファイ"),
    "PLTR": ("palantir", "パランティア"),
    "COIN": ("coinbase", "コインベース"),
    "F": ("ford", "福特", "フォード"),
    "GM": ("general motors", "通用汽车", "ゼネラル・モーターズ"),
}

#: names that are everyday words before they are companies: looked for only as the whole value
_WORDS = frozenset({"apple", "meta", "visa", "ford", "oracle", "nike", "tron", "polygon", "cosmos", "stellar", "ether",
                    "avalanche", "ripple", "苹果", "蘋果"})
_CODE = re.compile(r"[A-Z]{1,5}(?:\.[A-Z])?")


#: what a company's name may end with: "Apple Inc.", "苹果公司", "トヨタ自動車", "テスラ社"
_SUFFIX = re.compile(r"(?:[,.]?\s*\b(?:inc|corp|corporation|co|company|ltd|plc|holdings|group)\.?|公司|集团|社|株式会社|自動車)$")


def _key(text: str) -> str:
    key = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text).casefold().strip())
    return _SUFFIX.sub("", key).strip()


def _table(crypto: bool, stocks: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    for table, on in ((STOCKS, stocks), (CRYPTO, crypto)):
        for code, names in table.items() if on else ():
            out.update({_key(name): code for name in names})
            out.setdefault(code.casefold(), code)
    return out


_TABLES = {(crypto, stocks): _table(crypto, stocks) for crypto in (False, True) for stocks in (False, True)}


def ticker_symbol(text: str, crypto: bool = True, stocks: bool = True) -> str | None:
    """The symbol for a company or cryptocurrency named by its name or its symbol ("Tesla" -> ``TSLA``,
    "以太坊" -> ``ETH``); a symbol the tables do not know, written in capitals ("PLTR"), as it is; None
    otherwise."""
    table = _TABLES[(crypto, stocks)]
    key = _key(text)
    if key in table:
        return table[key]
    written = unicodedata.normalize("NFKC", text).strip()
    return written if _CODE.fullmatch(written) else None


def names(crypto: bool = True, stocks: bool = True) -> list[str]:
    """The names a message may say a symbol by (not those that are everyday words, nor one- and
    two-letter symbols, which are words of a sentence before they are symbols)."""
    return [name for name, code in _TABLES[(crypto, stocks)].items()
            if name not in _WORDS and not (name == code.casefold() and len(name) < 3)]
