from agent.tools import BaseTool, ToolManifest, ToolResult

class MyTool(BaseTool):

    def __init__(self, config: dict):
        self.config = config

    def manifest(self) -> ToolManifest:
        return ToolManifest(
            name="my_tool",                          # 唯一标识
            description="供 LLM 判断何时使用该工具的一句话描述",
            parameters={
                "param_name": "参数含义说明",
            },
            examples=[
                "自然语言触发示例 1",
                "自然语言触发示例 2",
            ],
        )

    def execute(self, params: dict) -> ToolResult:
        value = params.get("param_name", "")

        # 在这里实现你的逻辑...
        result = f"处理结果: {value}"

        return ToolResult(success=True, data=result)
