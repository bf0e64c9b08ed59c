def test_home(client, chinook):
    assert client.get("/").status_code == 200
