from agent.tools import BaseTool, ToolManifest, ToolResult

class MyTool(BaseTool):

    def __init__(self, config: dict):
        self.config = config

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="my_tool",                          # 一意の識別子
            description="LLM がこのツールを使うべきか判断するための一行説明",
            parameters={
                "param_name": "パラメータの意味",
            },
            examples=[
                "自然言語トリガー例 1",
                "自然言語トリガー例 2",
            ],
        )

    def execute(self, params: dict) -> ToolResult:
        value = params.get("param_name", "")

        # ここに処理を実装...
        result = f"処理結果: {value}"

        return ToolResult(success=True, data=result)
