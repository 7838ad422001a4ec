"""The router's texts in English, Chinese and Japanese: its instructions, the messages that need no
tool (few-shot turns and lookup), the answer prompt and its notices."""

from __future__ import annotations

#: tools found by retrieval for one message, listed in its turn (the prompt's own tools are in the prefix)
MORE_TOOLS = {
    "en": "(Also available for this message:\n{tools})",
    "zh": "（这条消息还可以用这些工具：\n{tools}）",
    "ja": "（このメッセージには次のツールも使えます：\n{tools}）",
}

#: with many tools, turns that show the tools of a message's turn being chosen, or passed over:
#: (message, the tools listed with it, the tool chosen or None)
_MORE_LISTED = ("- restaurant_book_table(restaurant, people, time): Reserve a table at a restaurant\n"
                "- restaurant_list_menus(restaurant): List the menus of a restaurant")
_MORE_CINEMA = ("- cinema_book_tickets(cinema, film, time, count): Book tickets for a showing\n"
                "- cinema_list_showings(cinema, date): List the showings of a cinema on a date")
_MORE_PASSED = ("- pet_get_profile(id): Get the profile of a pet by its ID\n"
                "- pet_list_vet_visits(limit): List recent vet visits")
MORE_TOOLS_SHOTS = {
    "en": [("Book a table for two at Luigi's at 8 pm", _MORE_LISTED, "restaurant_book_table"),
           ("Tell me a joke about cats", _MORE_PASSED, None),
           ("What's on at the Rex on Saturday?", _MORE_CINEMA, "cinema_list_showings"),
           ("Is Dune worth seeing at the cinema?", _MORE_CINEMA, None)],
    "zh": [("帮我在 Luigi's 订一张今晚8点的两人桌", _MORE_LISTED, "restaurant_book_table"),
           ("讲个关于猫的笑话", _MORE_PASSED, None),
           ("Rex 影院周六放什么电影？", _MORE_CINEMA, "cinema_list_showings"),
           ("《沙丘》值得去电影院看吗？", _MORE_CINEMA, None)],
    "ja": [("今夜8時に Luigi's で2人の席を予約して", _MORE_LISTED, "restaurant_book_table"),
           ("猫のジョークを言って", _MORE_PASSED, None),
           ("土曜日の Rex の上映スケジュールは？", _MORE_CINEMA, "cinema_list_showings"),
           ("「デューン」って映画館で見る価値ある？", _MORE_CINEMA, None)],
}

INSTRUCTIONS = {
    "en": (
        "You are a router. For each user message, reply with JSON that names the one tool that can do what "
        "the message asks, with its parameters, or the tool {none}.\n"
        "Tools:\n{tools}\n"
        "- {none}: no tool is needed; the assistant answers by itself (greetings, thanks, small talk, feelings, "
        "opinions, writing, translation, explanations, general knowledge, advice)."
    ),
    "zh": (
        "你是一个路由器。对每条用户消息，用 JSON 回复能完成该消息要求的那个工具及其参数，或者工具 {none}。\n"
        "工具：\n{tools}\n"
        "- {none}：不需要工具，助手自己回答（问候、感谢、闲聊、情绪、观点、写作、翻译、解释、常识、建议）。"
    ),
    "ja": (
        "あなたはルーターです。ユーザーのメッセージごとに、その依頼を実行できるツール 1 つとそのパラメータ、"
        "またはツール {none} を JSON で返してください。\n"
        "ツール：\n{tools}\n"
        "- {none}：ツール不要。アシスタントが自分で答える（挨拶、お礼、雑談、気持ち、意見、作文、翻訳、説明、一般知識、アドバイス）。"
    ),
}

# Messages that need no tool, shown as few-shot turns: written for Riverse, not taken from the benchmark.
NO_TOOL_SHOTS = [
    "Hello there!",
    "你好，最近怎么样？",
    "ありがとう、助かりました！",
    "Write a short poem about the sea.",
    "帮我写一段生日祝福语",
    "この文を英語に訳して：おはようございます",
    "Why is the ocean salty?",
    "为什么月亮会有阴晴圆缺？",
    "デジタル温度計ってどういう仕組み？",
    "What does the cd command do in a terminal?",
    "你觉得学编程难吗？",
    "週末は何をするのが好き？",
    # messages about a tool's subject that still need no tool
    "How do weather forecasts actually work?",
    "什么是时区？为什么会有时差？",
    "電卓とパソコンの計算の違いは？",
    "Translate 'see you tomorrow' into Spanish.",
    "怎样整理电脑里的文件比较好？",
    "メモを上手に取るコツを教えて",
    "Thanks, that helped a lot!",
    "谢谢你，辛苦了",
    "おはよう！今日も頑張ろう",
    "How tall is Mount Everest?",
    "长城有多长？",
    "富士山の高さはどれくらい？",
]

# More messages that need no tool, for the lookup only (not shown as turns: the prompt stays short).
NO_TOOL_LOOKUP = [
    "Hi there!",
    "How does a thermometer work?",
    "What's a good way to remember passwords?",
    "Can you help me write an email asking my boss for a day off?",
    "Explain how photosynthesis works",
    "What do you think makes a good leader?",
    "Any tips for falling asleep faster?",
    "How do time zones work?",
    "Give me some ideas for a birthday gift for my dad",
    "What is a regular expression?",
    "Explain the difference between weather and climate",
    "good night",
    "Can you suggest a name for my new puppy?",
    "What's the best way to learn a new language?",
    "Summarize the plot of Romeo and Juliet",
    "How do I politely decline a wedding invitation?",
    "Why do we have leap years?",
    "What's your favorite color?",
    "Help me brainstorm a title for my blog about hiking",
    "谢谢你，帮了大忙",
    "早上好！",
    "温度计是怎么工作的？",
    "最近工作压力好大，有点焦虑",
    "帮我写一封请假邮件给老板",
    "怎么才能早睡早起？",
    "什么是机器学习？简单解释一下",
    "李白是哪个朝代的诗人？",
    "怎样记住那么多密码比较安全？",
    "帮我想几句生日祝福的话",
    "晚安",
    "推荐几本适合入门的心理学书",
    "怎么跟室友沟通噪音问题比较好？",
    "解释一下什么是通货膨胀",
    "你是谁？",
    "帮我把这句话改得更礼貌一点：你赶紧把文件发我",
    "哈哈好的",
    "学编程应该先学哪门语言？",
    "给我的小狗起个名字吧",
    "如何做好一次面试的自我介绍？",
    "四季是怎么形成的？",
    "秋をテーマにした俳句を作って",
    "時差ボケの治し方は？",
    "最近ちょっと疲れてて、やる気が出ない",
    "上司に有給休暇をお願いするメールを書いて",
    "「お疲れさまです」を英語に訳すとどうなる？",
    "温度計ってどういう仕組みで温度を測ってるの？",
    "パスワードを覚えるいい方法ってある？",
    "日本で一番高い山は？",
    "読書を習慣にするコツを教えて",
    "光合成について簡単に説明して",
    "おやすみ",
    "猫と犬、どっちが飼いやすいと思う？",
    "彼女の誕生日プレゼント、何がいいかな？",
    "うるう年ってなんであるの？",
    "面接で緊張しないコツを教えて",
    "正規表現って何？",
    "このメール、もう少し丁寧な言い回しにしてくれる？「明日までに資料送ってください」",
    "あなたの名前は？",
    "プログラミング初心者におすすめの言語は？",
    "了解、ありがとう",
    "インフレってどういう意味？",
    "友達と喧嘩しちゃった。どうやって仲直りすればいい？",
    "一人旅がテーマのブログのタイトル案をいくつか考えて",
]

NO_TOOL_MESSAGES = [*NO_TOOL_SHOTS, *NO_TOOL_LOOKUP]

ANSWER_LANGUAGE = {
    "en": "Answer in English.",
    "zh": "请用中文回答。",
    "ja": "日本語で答えてください。",
}

#: the answer prompt after tools ran: the question and what the successful calls returned, nothing of
#: earlier turns (a small model copies an earlier answer's figures); failures are stated by Riverse
GROUNDED = {
    "en": (
        "{question}\n\nTool results:\n{results}\n\n"
        "Answer the question in one or two short sentences, using only these results; quote their numbers as "
        "given and do not add facts they do not contain. Answer in English."
    ),
    "zh": (
        "{question}\n\n工具结果：\n{results}\n\n"
        "请只根据这些结果，用一两句简短的话回答上面的问题；数字照原样引用，不要添加结果里没有的内容。请用中文回答。"
    ),
    "ja": (
        "{question}\n\nツールの結果：\n{results}\n\n"
        "これらの結果だけを使って、上の質問に一、二文で短く答えてください。数値はそのまま引用し、結果にないことは"
        "付け加えないでください。日本語で答えてください。"
    ),
}

PREPARING = {
    "en": "preparing the tool prompt for this set of tools (once; later messages start at once)",
    "zh": "正在为当前这组工具准备工具提示（只需一次，之后的消息会立即开始）",
    "ja": "このツール構成用のツールプロンプトを準備しています（初回のみ。以降のメッセージはすぐに始まります）",
}

UNREADABLE = {
    "en": "the model's tool decision could not be read ({error}); answering without a tool",
    "zh": "无法读取模型的工具决定（{error}），将不使用工具直接回答",
    "ja": "モデルのツール判断を読み取れませんでした（{error}）。ツールを使わずに答えます",
}

NOT_LOOKED_UP = {
    "en": "the model's answer stated what no tool looked up; answering with why it was not looked up instead",
    "zh": "模型的回答给出了没有任何工具查询过的内容；改为说明为什么没有查询",
    "ja": "モデルの回答にツールで調べていない内容が含まれていたため、調べなかった理由を答えます",
}
